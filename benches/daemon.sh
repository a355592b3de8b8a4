#!/usr/bin/env bash
# Benchmarks `finch daemon` at rest (issue 44):
#
#   daemon idle RSS      three idle bot mini tools (the test fixture that behaves like the public
#                        WeChat bot: a long poll to a fake iLink platform on loopback, which never
#                        has a message) and the daemon itself: the resident memory of the daemon's
#                        whole process tree (VmRSS summed over the daemon and every descendant —
#                        each node, each confined tree's reaper), sampled every 10 s.
#                        Targets: under 250 MiB in all, and no growth over ten minutes (the last
#                        minute's average against the first minute's after a 30 s warm-up).
#
# Usage: benches/daemon.sh [--minutes N] (default 10; a shorter run is a smoke test of the
# figures, not the growth target). Builds `cargo build --release` first. Needs node and Linux's
# /proc. Everything runs in one temp dir with its own HOME, runtime home and agent home, removed
# on exit, on failure and on Ctrl-C; the daemon and the fake platform are stopped the same way.
#
# Prints progress on stderr and the figures on stdout.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

minutes=10
while [ $# -gt 0 ]; do
    case $1 in
        --minutes) minutes=${2:?--minutes needs a number}; shift 2 ;;
        *) die "unknown argument $1 (usage: benches/daemon.sh [--minutes N])" ;;
    esac
done
BOTS=3
INTERVAL=${INTERVAL:-10}
WARMUP=30

[ -r /proc/self/status ] || die "needs Linux /proc to read resident memory"
command -v node >/dev/null || die "needs node on PATH"

build_finch

tmp=$(mktemp -d "${TMPDIR:-/tmp}/finch-daemon-bench.XXXXXX")
daemon_pid="" fake_pid=""
cleanup() {
    for pid in $daemon_pid $fake_pid; do
        if kill -0 "$pid" 2>/dev/null; then
            kill -TERM "$pid" 2>/dev/null || true
            wait "$pid" 2>/dev/null || true
        fi
    done
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

export HOME="$tmp/home" FINCH_RUNTIME_HOME="$tmp/home/.finch" FINCH_AGENT_HOME="$tmp/agent" NO_COLOR=1
mkdir -p "$HOME" "$FINCH_AGENT_HOME"

# The fake platform: every poll is held 25 s and answered with no message, as an idle chat.
cat >"$tmp/fake.mjs" <<'EOF'
import http from "node:http";
const server = http.createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    const answer = () => {
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ ret: 0, msgs: [], get_updates_buf: "0" }));
    };
    if (req.url === "/ilink/bot/getupdates") setTimeout(answer, 25000);
    else answer();
  });
});
server.listen(0, "127.0.0.1", () => console.log(server.address().port));
EOF
node "$tmp/fake.mjs" >"$tmp/fake.port" &
fake_pid=$!
for _ in $(seq 100); do [ -s "$tmp/fake.port" ] && break; sleep 0.1; done
port=$(head -1 "$tmp/fake.port")
[ -n "$port" ] || die "the fake platform did not start"

for i in $(seq "$BOTS"); do
    id="bench-bot-$i"
    dir="$tmp/src/$id"
    mkdir -p "$dir/dist"
    cp "$repo/tests/it/fixtures/minitools/ilink-bot.mjs" "$dir/dist/index.js"
    printf '{"name":"%s","version":"1.0.0","type":"module","main":"dist/index.js","finch":{"manifestVersion":1,"displayName":"Bot %s","permissions":{"network":true,"sessions":true}}}\n' "$id" "$i" >"$dir/package.json"
    "$finch" -q add "$dir" >/dev/null
    "$finch" -q enable "$id" >/dev/null
    mkdir -p "$FINCH_RUNTIME_HOME/extension-data/$id"
    printf '{"baseUrl":"http://127.0.0.1:%s"}\n' "$port" >"$FINCH_RUNTIME_HOME/extension-data/$id/storage.json"
done

"$finch" daemon 2>"$tmp/daemon.err" &
daemon_pid=$!
running=0
for _ in $(seq 300); do
    running=$("$finch" daemon status --json 2>/dev/null | grep -c '"state": "running"' || true)
    [ "$running" -ge "$BOTS" ] && break
    sleep 0.1
done
[ "$running" -ge "$BOTS" ] || { cat "$tmp/daemon.err" >&2; die "the bots did not all start"; }

# VmRSS in KiB of $1 and all its descendants.
tree_kib() {
    local root=$1 total=0 pids=("$1") all p kib
    all=$(for s in /proc/[0-9]*/stat; do
        # pid and ppid: the fields around the command, which may hold spaces.
        read -r line <"$s" 2>/dev/null || continue
        pid=${line%% *}; rest=${line##*) }; set -- $rest; echo "$pid $2"
    done)
    local i=0
    while [ $i -lt ${#pids[@]} ]; do
        p=${pids[$i]}
        kib=$(awk '/^VmRSS:/ {print $2}' "/proc/$p/status" 2>/dev/null || echo 0)
        total=$((total + ${kib:-0}))
        for child in $(awk -v pp="$p" '$2 == pp {print $1}' <<<"$all"); do pids+=("$child"); done
        i=$((i + 1))
    done
    echo "$total"
}

say "warming up ${WARMUP} s, then sampling every ${INTERVAL} s for ${minutes} min"
sleep "$WARMUP"
samples=()
end=$((SECONDS + minutes * 60))
while [ $SECONDS -lt $end ]; do
    samples+=("$(tree_kib "$daemon_pid")")
    sleep "$INTERVAL"
done
samples+=("$(tree_kib "$daemon_pid")")

per_minute=$(( 60 / INTERVAL ))
[ "$per_minute" -ge 1 ] || per_minute=1
n=${#samples[@]}
first=("${samples[@]:0:per_minute}")
last=("${samples[@]:$(( n > per_minute ? n - per_minute : 0 ))}")
avg() { local s=0; for v in "$@"; do s=$((s + v)); done; echo $((s / $#)); }
max=0; for v in "${samples[@]}"; do [ "$v" -gt "$max" ] && max=$v; done
a=$(avg "${first[@]}"); b=$(avg "${last[@]}")
mib() { awk -v k="$1" 'BEGIN {printf "%.1f MiB", k / 1024}'; }
growth=$(awk -v a="$a" -v b="$b" 'BEGIN {printf "%+.1f%%", (b - a) * 100 / a}')
"$finch" daemon status >"$tmp/status.txt" 2>&1 || true

echo "daemon idle RSS ($BOTS bots + daemon, ${minutes} min, ${n} samples):"
echo "  first minute avg  $(mib "$a")"
echo "  last minute avg   $(mib "$b")   growth $growth"
echo "  max               $(mib "$max")   target < 250 MiB: $([ "$max" -lt $((250 * 1024)) ] && echo met || echo MISSED)"
sed 's/^/  /' "$tmp/status.txt"
