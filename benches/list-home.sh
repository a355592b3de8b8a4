#!/usr/bin/env bash
# Fills a throw-away home with generated mini tools for start-up measurements of `finch list`:
#
#   benches/list-home.sh FINCH HOME [COUNT]
#
# Writes COUNT (default 200) mini tools with benches/gen-minitools.mjs, installs each with
# `FINCH add <dir>` into HOME/.finch (runtime home) and HOME/finchnest (agent home), enables
# every other one, and checks that `FINCH list` prints COUNT lines. HOME must not exist yet (the
# script refuses to touch a home with anything in it). Afterwards point any finch, the npm
# launcher or the official CLI at it with
#   HOME=HOME FINCH_RUNTIME_HOME=HOME/.finch FINCH_AGENT_HOME=HOME/finchnest
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

[ $# -ge 2 ] && [ $# -le 3 ] || { echo "usage: benches/list-home.sh FINCH HOME [COUNT]" >&2; exit 2; }
finch=$1 home=$2 count=${3:-200}
[ -x "$finch" ] || die "$finch is not an executable"
[ ! -e "$home" ] || [ -z "$(ls -A "$home")" ] || die "$home exists and is not empty"
mkdir -p "$home"
home=$(cd "$home" && pwd)

export HOME="$home" FINCH_RUNTIME_HOME="$home/.finch" FINCH_AGENT_HOME="$home/finchnest" NO_COLOR=1
node "$repo/benches/gen-minitools.mjs" "$home/sources" "$count"
for dir in "$home"/sources/*/; do
    "$finch" add "$dir" >/dev/null
done
mapfile -t ids < <(ls "$home/sources")
every_other=()
for ((i = 0; i < ${#ids[@]}; i += 2)); do every_other+=("${ids[i]}"); done
"$finch" enable "${every_other[@]}" >/dev/null
listed=$("$finch" list | wc -l)
[ "$listed" = "$count" ] || die "finch list printed $listed lines, expected $count"
say "$count mini tools installed in $home (${#every_other[@]} enabled)"
