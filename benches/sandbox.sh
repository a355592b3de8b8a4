#!/usr/bin/env bash
# Benchmarks the kernel wall (issue 27): what confining a Bash call costs.
#
#   200 `Bash {"command":"true"}` calls through one `finch run --jsonl` (request written →
#   response read, Python driver), in two configurations, interleaved round by round:
#     sandboxed   --mode acceptCalls: the fast lane, each call in the read-only sandbox
#                 (Landlock ruleset, seccomp filter, private TMPDIR, minimal environment)
#     unconfined  --mode ask --approve Bash with `[sandbox] approved = "none"`: the same calls
#                 approved and run without the wall
#   Prints the median and p95 per call of each, and the ratio of the medians (goal: ≤ 1.3×, the
#   sandbox adds ≤ 30 %). Then approved calls in workspace-write (the protected paths surveyed,
#   bound read-only and checked after each call) against the same unconfined.
#
#   Then the cost of one confined program against Codex CLI's: `finch sandbox run --profile
#   read-only -- true` and `codex sandbox -- true` (Codex CLI from the npm registry, as
#   scripts/install-test-peers installs it into .test-peers/agents), 40 runs each per round,
#   interleaved; the ratio of the medians (goal: ≤ 0.5×).
#
# Builds `cargo build --release` first; needs python3 and the test peers. Runs in one temp dir
# with its own HOME and homes, removed on exit. ROUNDS (default 5) sets the rounds.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

command -v python3 >/dev/null || die "python3 not found on PATH"
codex="$repo/.test-peers/agents/node_modules/.bin/codex"
[ -x "$codex" ] || die "no Codex CLI at $codex: run scripts/install-test-peers"

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

python3 - "$finch" "$walled" "$open" "$tmp/agent" "${ROUNDS:-5}" "$codex" <<'PY'
import json, os, statistics, subprocess, sys, time

finch, walled, unconfined, agent, rounds, codex = sys.argv[1:7]
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
ratio = medians["sandboxed"] / medians["unconfined"]
print(f"fast lane / approved unconfined: {ratio:.2f}× "
      f"({us(medians['sandboxed'] - medians['unconfined'])} per call); goal ≤ 1.3×")

# Approved calls in workspace-write: the survey of the protected paths, their binds and the
# check after each call on top.
ww, _ = run(walled, ["--mode", "ask", "--approve", "Bash"], "true", CALLS)
ww.sort()
print(f"workspace-write median {us(statistics.median(ww))} "
      f"({statistics.median(ww) / medians['unconfined']:.2f}× approved unconfined)")

# One confined program, finch's against Codex CLI's.
def once(argv):
    env = dict(os.environ, FINCH_RUNTIME_HOME=walled, FINCH_AGENT_HOME=agent)
    t0 = time.perf_counter()
    done = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    took = time.perf_counter() - t0
    if done.returncode != 0:
        sys.exit(f"{argv} exited {done.returncode}")
    return took

programs = {
    "finch sandbox run --profile read-only -- true":
        [finch, "sandbox", "run", "--profile", "read-only", "--", "true"],
    "codex sandbox -- true": [codex, "sandbox", "--", "true"],
}
times = {name: [] for name in programs}
once(programs["codex sandbox -- true"])  # its first start writes its home
for _ in range(rounds):
    for name, argv in programs.items():
        times[name].extend(once(argv) for _ in range(40))
meds = {}
for name, xs in times.items():
    meds[name] = statistics.median(xs)
    print(f"{name:<46} median {us(meds[name])} ({len(xs)} runs)")
finch_run, codex_run = meds.values()
print(f"finch sandbox run / codex sandbox: {finch_run / codex_run:.2f}×; goal ≤ 0.5×")
PY
