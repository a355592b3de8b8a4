#!/usr/bin/env bash
# Size and start-up of one or more finch binaries (release profile variants, say):
#
#   benches/startup.sh FINCH...
#
# For each binary: its size, its size after `strip`, gzip -9 of it (about what an npm tarball
# of it weighs), and hyperfine's median and minimum of `finch --version` and of `finch list`
# with 200 installed mini tools (a throw-away home made by benches/list-home.sh with the first
# binary). Prints one Markdown table on stdout. Needs hyperfine (apt-get install -y hyperfine)
# and node.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
[ $# -ge 1 ] || { echo "usage: benches/startup.sh FINCH..." >&2; exit 2; }
need hyperfine
tmp=$(mktemp -d "${TMPDIR:-/tmp}/finch-startup.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

bash "$repo/benches/list-home.sh" "$1" "$tmp/home" 200
export HOME="$tmp/home" FINCH_RUNTIME_HOME="$tmp/home/.finch" FINCH_AGENT_HOME="$tmp/home/finchnest" NO_COLOR=1
say "load average before measuring: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"

# "median (min)" in ms: the minimum is the least disturbed by other work on a shared machine.
median_ms() { node -e 'const r = require(process.argv[1]).results[0]; console.log((r.median * 1000).toFixed(1) + " (" + (r.min * 1000).toFixed(1) + ")")' "$1"; }
mb() { node -e 'console.log((Number(process.argv[1]) / 1e6).toFixed(1))' "$1"; }

echo "| binary | size MB | stripped MB | gzip -9 MB | \`--version\` ms, median (min) | \`list\` (200) ms, median (min) |"
echo "|---|---|---|---|---|---|"
for finch in "$@"; do
    size=$(wc -c <"$finch")
    strip -o "$tmp/stripped" "$finch"
    stripped=$(wc -c <"$tmp/stripped")
    gz=$(gzip -9 -c "$finch" | wc -c)
    hyperfine -N --style none --warmup 5 --min-runs 50 --export-json "$tmp/version.json" "$(q "$finch") --version" >&2
    hyperfine -N --style none --warmup 5 --min-runs 50 --export-json "$tmp/list.json" "$(q "$finch") list" >&2
    echo "| $finch | $(mb "$size") | $(mb "$stripped") | $(mb "$gz") | $(median_ms "$tmp/version.json") | $(median_ms "$tmp/list.json") |"
done
