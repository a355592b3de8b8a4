#!/usr/bin/env bash
# Benchmarks the kernel wall (issue 27): what confining a Bash call costs.
#
#   200 `Bash {"command":"true"}` calls through one `finch run --jsonl` (request written →
#   response read, Python driver), in two configurations, interleaved round by round:
#     sandboxed   --mode acceptCalls: the fast lane, each call in the read-only sandbox
#                 (Landlock ruleset, seccomp filter, private TMPDIR, minimal environment)
#     unconfined  --mode ask --approve Bash with `[sandbox] approved = "none"`: the same calls
#                 approved and run without the wall
#   Prints the median and p95 per call of each, and the ratio of the medians (goal: the
#   sandbox adds ≤ 30 %). Then one approved call in workspace-write (private mount namespace,
#   read-only binds of the protected paths) against the same unconfined.
#
# Builds `cargo build --release` first; needs python3. Runs in one temp dir with its own HOME and
# homes, removed on exit. ROUNDS (default 5) sets the rounds per configuration.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

command -v python3 >/dev/null || die "python3 not found on PATH"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/finch-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

build_finch

export HOME="$tmp/home"
export NO_COLOR=1
work="$tmp/work"
mkdir -p "$work/.git/hooks" "$HOME"
printf '[core]\n' >"$work/.git/config"
cd "$work"

# Two runtime homes: the default settings, and approved calls without the wall.
walled="$tmp/walled"
open="$tmp/open"
mkdir -p "$walled/config" "$open/config"
printf '[sandbox]\napproved = "none"\n' >"$open/config/finch.toml"

python3 - "$finch" "$walled" "$open" "$tmp/agent" "${ROUNDS:-5}" <<'PY'
import json, os, statistics, subprocess, sys, time

finch, walled, unconfined, agent, rounds = sys.argv[1:6]
rounds = int(rounds)
CALLS = 200

def run(runtime, args, command, calls):
    env = dict(os.environ, FINCH_RUNTIME_HOME=runtime, FINCH_AGENT_HOME=agent)
    p = subprocess.Popen([finch, "run", "--jsonl", *args], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, env=env, text=True, bufsize=1)
    times = []
    for i in range(calls):
        req = json.dumps({"id": i, "tool": "Bash", "arguments": {"command": command}})
        t0 = time.perf_counter()
        p.stdin.write(req + "\n")
        p.stdin.flush()
        line = p.stdout.readline()
        times.append(time.perf_counter() - t0)
        reply = json.loads(line)
        if reply.get("decision") != "allow" or reply.get("isError"):
            sys.exit(f"call failed: {line}")
    p.stdin.close()
    p.wait()
    return times, reply.get("sandbox")

configs = {
    "sandboxed": (walled, ["--mode", "acceptCalls"]),
    "unconfined": (unconfined, ["--mode", "ask", "--approve", "Bash"]),
}
samples = {name: [] for name in configs}
seen = {}
for _ in range(rounds):
    for name, (runtime, args) in configs.items():
        times, sandbox = run(runtime, args, "true", CALLS)
        samples[name].extend(times)
        seen[name] = sandbox

def us(x):
    return f"{x * 1e6:,.0f} µs"

medians = {}
for name, times in samples.items():
    times.sort()
    medians[name] = statistics.median(times)
    p95 = times[int(len(times) * 0.95)]
    print(f"{name:<12} sandbox={seen[name]:<16} median {us(medians[name])}, p95 {us(p95)} "
          f"({len(times)} calls)")
added = medians["sandboxed"] / medians["unconfined"] - 1
print(f"the read-only sandbox adds {added * 100:+.1f} % per call "
      f"({us(medians['sandboxed'] - medians['unconfined'])}); goal ≤ +30 %")

# Approved calls in workspace-write: the mount namespace and binds on top.
ww, _ = run(walled, ["--mode", "ask", "--approve", "Bash"], "true", CALLS)
ww.sort()
print(f"workspace-write median {us(statistics.median(ww))} "
      f"({statistics.median(ww) / medians['unconfined'] - 1:+.1%} against unconfined)")
PY
