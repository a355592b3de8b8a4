#!/usr/bin/env bash
# Benchmarks `finch schedule`:
#
#   schedule list        1,000 tasks of every kind in four time zones, each with a 20-run history
#                        (19 lines written here, the last one by a real `finch schedule run`, which
#                        also fills the last-run cache `list` reads): hyperfine, piped
#                        (tab-separated) and --json output. Target: <= 10 ms.
#   schedule daemon      idle with 1,000 enabled tasks none of which is due for months: the CPU
#                        seconds (utime + stime from /proc/<pid>/stat) and the wake-ups (context
#                        switches of all its threads) over 60 s. Target: about 0.
#
# Builds `cargo build --release` first. Needs hyperfine (installed with apt-get when missing and
# running as root) and Linux's /proc. Everything runs in one temp dir with its own HOME, runtime
# home and agent home, removed on exit, on failure and on Ctrl-C; the daemon is stopped the same
# way. IDLE_SECONDS overrides the 60 s window.
#
# Prints hyperfine's progress on stderr and the figures on stdout.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

TASKS=1000
RUNS_PER_TASK=20
IDLE_SECONDS=${IDLE_SECONDS:-60}

need hyperfine
[ -r /proc/self/stat ] || die "needs Linux /proc to read the daemon's CPU time"

build_finch

tmp=$(mktemp -d "${TMPDIR:-/tmp}/finch-schedule-bench.XXXXXX")
daemon_pid=""
cleanup() {
    if [ -n "$daemon_pid" ] && kill -0 "$daemon_pid" 2>/dev/null; then
        kill -TERM "$daemon_pid" 2>/dev/null || true
        wait "$daemon_pid" 2>/dev/null || true
    fi
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

export HOME="$tmp/home" FINCH_AGENT_HOME="$tmp/agent" NO_COLOR=1
mkdir -p "$HOME" "$FINCH_AGENT_HOME"

# Writes `<runtime>/automation/tasks.json` with $TASKS tasks; $2 = "busy" (every kind, due soon
# and often) or "idle" (nothing due for months).
write_tasks() {
    local runtime=$1 mode=$2 zones=(UTC Europe/Berlin America/New_York Asia/Tokyo)
    local days=(mon tue wed thu fri sat sun)
    local year=$(( $(date -u +%Y) + 1 ))
    mkdir -p "$runtime/automation/runs"
    {
        printf '{\n  "tasks": [\n'
        for ((i = 0; i < TASKS; i++)); do
            local id schedule zone
            id=$(printf 't-%06x' "$i")
            zone=${zones[$((i % 4))]}
            if [ "$mode" = idle ]; then
                case $((i % 2)) in
                    0) schedule="cron \\\"0 3 1 1 *\\\"" ;;
                    1) schedule="once $year-12-31T23:00:00Z" ;;
                esac
            else
                case $((i % 6)) in
                    0) schedule="hourly at :$(printf '%02d' $((i % 60)))" ;;
                    1) schedule="daily $(printf '%02d:%02d' $((i % 24)) $((i % 60)))" ;;
                    2) schedule="weekdays $(printf '%02d:%02d' $((i % 24)) $((i % 60)))" ;;
                    3) schedule="weekly ${days[$((i % 7))]} 02:30" ;;
                    4) schedule="cron \\\"*/$((i % 29 + 1)) 9-17 * * 1-5\\\"" ;;
                    5) schedule="once $year-06-01T09:00:00Z" ;;
                esac
            fi
            [ "$i" -gt 0 ] && printf ',\n'
            printf '    {"id": "%s", "name": "Task %d", "prompt": "Do thing number %d", "schedule": "%s", "timezone": "%s", "permissionMode": "acceptCalls", "enabled": true, "createdAt": "2026-01-01T00:00:00.000Z", "updatedAt": "2026-01-01T00:00:00.000Z"}' \
                "$id" "$i" "$i" "$schedule" "$zone"
        done
        printf '\n  ]\n}\n'
    } >"$runtime/automation/tasks.json"
}

# A history of $RUNS_PER_TASK - 1 runs for every task, each with a few hundred bytes of output.
write_history() {
    local runtime=$1 line tail
    tail=$(printf 'line %s of the agent output\\n' $(seq 1 12))
    for ((i = 0; i < TASKS; i++)); do
        local id
        id=$(printf 't-%06x' "$i")
        for ((r = 1; r < RUNS_PER_TASK; r++)); do
            printf '{"runId":"r-%06x%04x","taskId":"%s","taskName":"Task %d","trigger":"schedule","scheduledFor":"2026-01-01T00:%02d:00.000Z","startedAt":"2026-01-01T00:%02d:00.010Z","finishedAt":"2026-01-01T00:%02d:30.000Z","status":"succeeded","exitCode":0,"sessionId":"00000000-0000-4000-8000-000000000000","directory":"/tmp","durationMs":29990,"outputTail":"%s"}\n' \
                "$i" "$r" "$id" "$i" "$r" "$r" "$r" "$tail"
        done >"$runtime/automation/runs/$id.jsonl"
    done
}

# --- schedule list ------------------------------------------------------------------------------
busy="$tmp/busy"
say "writing $TASKS tasks and $((TASKS * (RUNS_PER_TASK - 1))) history records"
write_tasks "$busy" busy
write_history "$busy"
export FINCH_RUNTIME_HOME="$busy"
mkdir -p "$busy/config"
printf '[agent]\ncommand = ["true", "{prompt}"]\n' >"$busy/config/finch.toml"
say "running every task once with finch schedule run"
for ((i = 0; i < TASKS; i++)); do
    "$finch" -q schedule run "$(printf 't-%06x' "$i")" >/dev/null
done
listed=$("$finch" schedule list | wc -l)
[ "$listed" = "$TASKS" ] || die "schedule list printed $listed lines, not $TASKS"
"$finch" --json schedule list >/dev/null

# A field of hyperfine's JSON export, in milliseconds.
field_ms() { grep -o "\"$2\": *[0-9.e-]*" "$1" | head -1 | sed 's/.*: *//' | awk '{printf "%.2f", $1 * 1000}'; }
timing() { echo "mean $(field_ms "$1" mean) ms   (CPU: user $(field_ms "$1" user) + system $(field_ms "$1" system) ms)"; }
say "hyperfine: schedule list"
hyperfine -N --warmup 5 --runs 50 --export-json "$tmp/list.json" "$finch schedule list" >&2
hyperfine -N --warmup 5 --runs 50 --export-json "$tmp/list-json.json" "$finch --json schedule list" >&2
hyperfine -N --warmup 5 --runs 50 --export-json "$tmp/version.json" "$finch --version" >&2
list_timing=$(timing "$tmp/list.json")
list_json_timing=$(timing "$tmp/list-json.json")
version_timing=$(timing "$tmp/version.json")
load=$(cut -d' ' -f1-3 /proc/loadavg)

# --- schedule daemon, idle ----------------------------------------------------------------------
idle="$tmp/idle"
write_tasks "$idle" idle
mkdir -p "$idle/config"
printf '[agent]\ncommand = ["true", "{prompt}"]\n' >"$idle/config/finch.toml"
export FINCH_RUNTIME_HOME="$idle"
"$finch" --json schedule daemon >"$tmp/daemon.out" 2>"$tmp/daemon.err" &
daemon_pid=$!
for _ in $(seq 1 100); do
    grep -q '"event":"ready"' "$tmp/daemon.out" 2>/dev/null && break
    sleep 0.05
done
grep -q '"event":"ready"' "$tmp/daemon.out" || die "the daemon did not start: $(cat "$tmp/daemon.err")"
sleep 2

ticks=$(getconf CLK_TCK)
# utime + stime of the whole process (all threads), in clock ticks.
cpu_ticks() { sed 's/^.*) //' "/proc/$daemon_pid/stat" | awk '{print $12 + $13}'; }
# Voluntary + involuntary context switches summed over the daemon's threads: its wake-ups.
switches() {
    cat /proc/"$daemon_pid"/task/*/status 2>/dev/null |
        awk '/^(voluntary|nonvoluntary)_ctxt_switches/ {n += $2} END {print n}'
}
threads() { ls /proc/"$daemon_pid"/task | wc -l; }
say "measuring the idle daemon (pid $daemon_pid) for $IDLE_SECONDS s"
cpu_before=$(cpu_ticks)
switches_before=$(switches)
sleep "$IDLE_SECONDS"
cpu_after=$(cpu_ticks)
switches_after=$(switches)
rss_kb=$(awk '/^VmRSS/ {print $2}' "/proc/$daemon_pid/status")
thread_count=$(threads)
kill -TERM "$daemon_pid"
wait "$daemon_pid" && daemon_exit=0 || daemon_exit=$?
daemon_pid=""
grep -q '"event":"stopped"' "$tmp/daemon.out" || die "the daemon did not report stopping"
cpu_seconds=$(awk -v a="$cpu_before" -v b="$cpu_after" -v t="$ticks" 'BEGIN {printf "%.2f", (b - a) / t}')
wakeups=$((switches_after - switches_before))

cat <<EOF

finch schedule — $(date -u +%Y-%m-%d) — $(nproc) cores, $(uname -sr)

  schedule list, $TASKS tasks, $((TASKS * RUNS_PER_TASK)) runs of history (target <= 10 ms)
    piped (tab-separated)        ${list_timing}
    --json                       ${list_json_timing}
    for scale: finch --version   ${version_timing}
    load average at the time     ${load}

  schedule daemon, idle ${IDLE_SECONDS} s with $TASKS enabled tasks
    CPU (utime + stime)          ${cpu_seconds} s  (clock tick $((1000 / ticks)) ms)
    wake-ups (context switches)  ${wakeups} over ${thread_count} threads
    resident memory              $((rss_kb / 1024)) MiB
    exit code after SIGTERM      ${daemon_exit}
EOF
