#!/usr/bin/env bash
# Benchmarks the tool host core against the goals of its issue:
#
#   ToolSearch in-process   one query over a generated 5,000-tool catalog (goal ≤ 2 ms), measured
#                           by the ignored test host::toolsearch::tests::toolsearch_throughput
#                           in a release build; it also writes that catalog as the cache
#   finch tool search       the whole process over the same 5,000-tool cache and its search
#                           index catalog.index (goal ≤ 15 ms), median of hyperfine runs; then
#                           the same without the index (the one-pass fallback) for comparison.
#                           The test also times writing the cache with its index (what `finch
#                           reload` adds by writing it)
#   run --jsonl round trip  10,000 sequential calls of a built-in (Read of a small file in
#                           acceptCalls mode) through one `finch run --jsonl`; median and p95 of
#                           request-written → response-read, timed by a small Python driver
#                           (goal: median ≤ 200 µs)
#
# Builds `cargo build --release` first; needs hyperfine (installed with apt-get when missing and
# running as root) and python3. Runs in one temp dir with its own HOME and homes, removed on exit.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need hyperfine
command -v python3 >/dev/null || die "python3 not found on PATH"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/finch-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

say "cargo test --release (toolsearch_throughput)"
test_out=$(cd "$repo" && FINCH_BENCH_CATALOG="$tmp/home/.finch/cache/catalog.json" \
    cargo test --release --quiet --lib host::toolsearch::tests::toolsearch_throughput \
    -- --ignored --exact --nocapture 2>/dev/null)
search_line=$(grep '^toolsearch:' <<<"$test_out" || true)
cache_line=$(grep '^catalog cache:' <<<"$test_out" || true)
[ -n "$search_line" ] && [ -n "$cache_line" ] || die "no figure in the test output"
[ -f "$tmp/home/.finch/cache/catalog.index" ] || die "the test wrote no catalog.index"

build_finch

export HOME="$tmp/home"
export FINCH_RUNTIME_HOME="$HOME/.finch"
export FINCH_AGENT_HOME="$HOME/finchnest"
export NO_COLOR=1
work="$tmp/work"
mkdir -p "$work"
cd "$work"
say "load average before measuring: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"

query="send a message to a channel"
"$finch" tool search "$query" >/dev/null || die "finch tool search failed"
hyperfine -N --warmup 5 --runs 60 --export-json "$tmp/search.json" \
    "$(q "$finch") tool search $(q "$query")" >&2
median_of() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; print("%.2f" % (r["median"]*1000))' "$1"; }
search_ms=$(median_of "$tmp/search.json")
mv "$HOME/.finch/cache/catalog.index" "$tmp/catalog.index"
hyperfine -N --warmup 5 --runs 30 --export-json "$tmp/search-noindex.json" \
    "$(q "$finch") tool search $(q "$query")" >&2
noindex_ms=$(median_of "$tmp/search-noindex.json")
mv "$tmp/catalog.index" "$HOME/.finch/cache/catalog.index"

printf 'hello from the benchmark\n' >"$work/small.txt"
jsonl=$(python3 - "$finch" <<'PY'
import json, subprocess, sys, time
finch = sys.argv[1]
proc = subprocess.Popen([finch, "run", "--jsonl", "--mode", "acceptCalls"],
                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
requests = [(json.dumps({"id": i, "tool": "Read", "arguments": {"file_path": "small.txt"}}) + "\n").encode()
            for i in range(10_500)]
out = proc.stdout
times = []
for i, request in enumerate(requests):
    start = time.perf_counter_ns()
    proc.stdin.write(request)
    line = out.readline()
    elapsed = time.perf_counter_ns() - start
    if i == 0:
        response = json.loads(line)
        if response.get("isError") or response.get("decision") != "allow":
            sys.exit("first call failed: %s" % line.decode())
    if i >= 500:  # warm-up
        times.append(elapsed / 1000)
proc.stdin.close()
proc.wait()
times.sort()
print("%.1f %.1f %d" % (times[len(times) // 2], times[len(times) * 95 // 100], len(times)))
PY
)
read -r rt_median rt_p95 rt_calls <<<"$jsonl"

echo "$search_line"
echo "$cache_line"
awk -v s="$search_line" -v t="$search_ms" -v u="$noindex_ms" -v m="$rt_median" -v p="$rt_p95" -v n="$rt_calls" 'BEGIN {
    match(s, /query median [0-9.]+/); q = substr(s, RSTART + 13, RLENGTH - 13) / 1000
    printf "ToolSearch in-process: median %.3f ms per query (goal 2 ms: %.0fx under)\n", q, 2 / q
    printf "finch tool search, whole process, 5,000 tools: %.2f ms median (goal 15 ms: %s); without the index %.2f ms\n", t, (t <= 15 ? "ok" : "ABOVE GOAL"), u
    printf "run --jsonl built-in round trip: median %.1f us, p95 %.1f us over %d calls (goal 200 us: %s)\n", m, p, n, (m <= 200 ? "ok" : "ABOVE GOAL")
}'
