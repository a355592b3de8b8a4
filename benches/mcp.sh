#!/usr/bin/env bash
# Benchmarks `finch run --serve mcp` against two reference MCP servers on stdio (issue 6):
#
#   (a) finch run --serve mcp --mode acceptCalls, calling the Read built-in on a small file
#       (allowed by the fast lane; the call is recorded in the session transcript, as every call,
#       the records of a burst of calls written together: `[host] record_delay`, 2 ms)
#   (b) tests/peers/echo_server.py: an `echo` tool written with the official Python SDK (mcp 2.x)
#   (c) npm @modelcontextprotocol/server-everything, its `echo` tool
#
# One driver for all three (benches/mcp_driver.py): initialize, then 10,000 pre-serialized
# `tools/call` requests (after 500 warm-up calls), written one at a time, each timed from the
# write to its response line. Three rounds, the servers interleaved; the figures are the median
# round's (by calls/s). Two layouts, since CPU placement dominates here: driver and server
# pinned to one CPU, then to two. Also timed: finch answered a tool name it does not know
# (refused before any tool runs, still recorded in the transcript) — finch's loop alone — and
# finch with `record_delay = "0"`, an append to the transcript per call (what a burst saves),
# and, when a C compiler is there, benches/null_server.c: canned answers and no work at all,
# the floor of the driver, the pipes and the scheduler (the best ratio any server could get).
# Targets: finch >= 10x (b) and >= 2x (c) in calls/s, finch p50 <= 100 us. MCP_BENCH_CALLS
# sets the number of timed calls (default 10,000).
#
# A second table (issue 15): 8 callers at once on one connection — the driver keeps 8 calls
# outstanding (--in-flight 8), each response followed by the next request — for (a), (b) and
# (c): finch runs its calls side by side (`[host] max_calls`), the others as their SDKs do.
#
# Builds `cargo build --release` first and installs the pinned peers (scripts/install-test-peers:
# python mcp, server-everything) when missing. Runs in one temp dir with its own HOME and homes,
# removed on exit.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

command -v python3 >/dev/null || die "python3 not found on PATH"
command -v node >/dev/null || die "node not found on PATH"
command -v taskset >/dev/null || die "taskset not found on PATH (util-linux)"
"$repo/scripts/install-test-peers" >/dev/null 2>&1 || "$repo/scripts/install-test-peers" ||
    die "scripts/install-test-peers failed"
everything="$repo/.test-peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
[ -f "$everything" ] || die "no $everything after scripts/install-test-peers"
echo_server="$repo/tests/peers/echo_server.py"
[ -f "$echo_server" ] || die "no $echo_server"

build_finch

tmp=$(mktemp -d "${TMPDIR:-/tmp}/finch-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
export HOME="$tmp/home"
export FINCH_RUNTIME_HOME="$HOME/.finch"
export FINCH_AGENT_HOME="$HOME/finchnest"
export NO_COLOR=1
work="$tmp/work"
mkdir -p "$work" "$HOME"
cd "$work"
printf 'hello from the benchmark\n' >"$work/small.txt"

null_server=""
if command -v cc >/dev/null; then
    cc -O2 -o "$tmp/null_server" "$repo/benches/null_server.c" && null_server="$tmp/null_server"
fi

# The same runtime home but for one setting: each call's record written as the call ends.
per_call_home="$tmp/per-call-runtime"
mkdir -p "$per_call_home/config"
printf '[host]\nrecord_delay = "0"\n' >"$per_call_home/config/finch.toml"

driver=(python3 "$repo/benches/mcp_driver.py" --calls "${MCP_BENCH_CALLS:-10000}" --warmup 500)
say "load average before measuring: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
# Where the driver and the server run matters more than anything they do: on this kind of
# machine (a VM) waking a process on the other CPU costs tens of microseconds each way. So each
# layout is measured on its own: driver and server sharing CPU 0, then the server on CPU 1.
layouts=(one)
[ "$(nproc)" -ge 2 ] && layouts+=(two)
for layout in "${layouts[@]}"; do
    server_cpu=0
    [ "$layout" = two ] && server_cpu=1
    pin=(taskset -c "$server_cpu")
    for round in 1 2 3; do
        say "$layout core(s), round $round: finch"
        taskset -c 0 "${driver[@]}" --tool Read --arguments '{"file_path":"small.txt"}' -- \
            "${pin[@]}" "$finch" run --serve mcp --mode acceptCalls >>"$tmp/$layout-finch.jsonl"
        say "$layout core(s), round $round: finch, a transcript append per call"
        taskset -c 0 "${driver[@]}" --tool Read --arguments '{"file_path":"small.txt"}' -- \
            "${pin[@]}" env FINCH_RUNTIME_HOME="$per_call_home" "$finch" run --serve mcp --mode acceptCalls \
            >>"$tmp/$layout-percall.jsonl"
        say "$layout core(s), round $round: finch, a tool name it does not know"
        taskset -c 0 "${driver[@]}" --tool NoSuchTool --expect-error -- \
            "${pin[@]}" "$finch" run --serve mcp --mode acceptCalls >>"$tmp/$layout-loop.jsonl"
        say "$layout core(s), round $round: python mcp echo"
        taskset -c 0 "${driver[@]}" --tool echo --arguments '{"message":"hello from the benchmark"}' -- \
            "${pin[@]}" python3 "$echo_server" >>"$tmp/$layout-python.jsonl" 2>/dev/null
        if [ -n "$null_server" ]; then
            say "$layout core(s), round $round: null server (the floor)"
            taskset -c 0 "${driver[@]}" --tool echo --arguments '{}' -- \
                "${pin[@]}" "$null_server" >>"$tmp/$layout-null.jsonl"
        fi
        say "$layout core(s), round $round: server-everything echo"
        taskset -c 0 "${driver[@]}" --tool echo --arguments '{"message":"hello from the benchmark"}' -- \
            "${pin[@]}" node "$everything" stdio >>"$tmp/$layout-everything.jsonl" 2>/dev/null
        say "$layout core(s), round $round: 8 calls in flight: finch, python, server-everything"
        taskset -c 0 "${driver[@]}" --in-flight 8 --tool Read --arguments '{"file_path":"small.txt"}' -- \
            "${pin[@]}" "$finch" run --serve mcp --mode acceptCalls >>"$tmp/$layout-finch8.jsonl"
        taskset -c 0 "${driver[@]}" --in-flight 8 --tool echo --arguments '{"message":"hello from the benchmark"}' -- \
            "${pin[@]}" python3 "$echo_server" >>"$tmp/$layout-python8.jsonl" 2>/dev/null
        taskset -c 0 "${driver[@]}" --in-flight 8 --tool echo --arguments '{"message":"hello from the benchmark"}' -- \
            "${pin[@]}" node "$everything" stdio >>"$tmp/$layout-everything8.jsonl" 2>/dev/null
    done
done

python3 - "$tmp" "${layouts[@]}" <<'PY'
import json, os, sys
tmp, layouts = sys.argv[1], sys.argv[2:]

def median_round(name):
    rounds = [json.loads(line) for line in open(f"{tmp}/{name}.jsonl")]
    rounds.sort(key=lambda r: r["calls_per_s"])
    return rounds[len(rounds) // 2], rounds

ok = lambda good: "ok" if good else "BELOW GOAL"
for layout in layouts:
    finch, finch_all = median_round(f"{layout}-finch")
    python, _ = median_round(f"{layout}-python")
    everything, _ = median_round(f"{layout}-everything")
    print("driver and server on one CPU:" if layout == "one" else "driver on CPU 0, server on CPU 1:")
    row = lambda label, r: print(f"  {label:<34} {r['calls_per_s']:>7,.0f} calls/s  p50 {r['p50_us']:>6.1f} us  p95 {r['p95_us']:>6.1f} us  p99 {r['p99_us']:>7.1f} us")
    row("(a) finch run --serve mcp, Read", finch)
    row("(b) Python mcp echo", python)
    row("(c) server-everything echo", everything)
    loop, _ = median_round(f"{layout}-loop")
    row("finch, unknown tool (loop alone)", loop)
    per_call, _ = median_round(f"{layout}-percall")
    row("finch, Read, record_delay = 0", per_call)
    vs_python = finch["calls_per_s"] / python["calls_per_s"]
    vs_everything = finch["calls_per_s"] / everything["calls_per_s"]
    print(f"  finch / (b): {vs_python:.1f}x calls/s (goal 10x: {ok(vs_python >= 10)}); "
          f"p50 {python['p50_us'] / finch['p50_us']:.1f}x lower")
    print(f"  finch / (c): {vs_everything:.2f}x calls/s (goal 2x: {ok(vs_everything >= 2)}); "
          f"p50 {everything['p50_us'] / finch['p50_us']:.2f}x lower")
    print(f"  finch p50: {finch['p50_us']:.1f} us (goal 100 us: {ok(finch['p50_us'] <= 100)}); "
          "each run: " + ", ".join(f"{r['calls_per_s']:,.0f}/s" for r in finch_all))
    print(f"  the loop alone (rmcp's service, the gateway, the transcript entry; no tool runs) is "
          f"{loop['calls_per_s'] / everything['calls_per_s']:.2f}x (c); Read adds "
          f"{1e6 / finch['calls_per_s'] - 1e6 / loop['calls_per_s']:.1f} us per call")
    if os.path.exists(f"{tmp}/{layout}-null.jsonl"):
        floor, _ = median_round(f"{layout}-null")
        row("null server (the floor)", floor)
        print(f"  the floor itself is {floor['calls_per_s'] / python['calls_per_s']:.1f}x (b) and "
              f"{floor['calls_per_s'] / everything['calls_per_s']:.2f}x (c): no server can do better here")
    print(f"  a transcript append per call (record_delay = 0) costs "
          f"{1e6 / per_call['calls_per_s'] - 1e6 / finch['calls_per_s']:.1f} us per call more: "
          f"{per_call['calls_per_s'] / everything['calls_per_s']:.2f}x (c)")
    finch8, _ = median_round(f"{layout}-finch8")
    python8, _ = median_round(f"{layout}-python8")
    everything8, _ = median_round(f"{layout}-everything8")
    print("  8 calls in flight on one connection (8 callers at once):")
    row("(a) finch run --serve mcp, Read", finch8)
    row("(b) Python mcp echo", python8)
    row("(c) server-everything echo", everything8)
    print(f"  finch / (b): {finch8['calls_per_s'] / python8['calls_per_s']:.1f}x calls/s; "
          f"finch / (c): {finch8['calls_per_s'] / everything8['calls_per_s']:.2f}x calls/s")
PY
