#!/usr/bin/env bash
# Benchmarks finch against the numbers of the issue that asked for it and against npm:
#
#   finch list           200 installed mini tools (half enabled), median time and peak RSS
#   finch enable <id>    each timed run enables an id the untimed prepare step disabled
#   finch add <dir>      one small mini tool, reinstalled over the same id every run
#   finch add <name>     from a local verdaccio, download cache cleared before every run, versus
#                        `npm install <name>` into an emptied prefix with a fresh npm cache dir
#
# Builds `cargo build --release` first. Needs node + npm (for verdaccio, installed by
# scripts/install-test-peers), hyperfine and GNU time (installed with apt-get when missing and
# running as root). Everything runs in one temp dir with its own HOME, runtime home and agent
# home; the only network peer is the verdaccio this script starts on 127.0.0.1. The temp dir and
# verdaccio are removed on exit, on failure and on Ctrl-C too.
#
# Prints hyperfine's progress on stderr and the final table on stdout.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
benches="$repo/benches"

LIST_TOOLS=200
RSS_RUNS=21

need hyperfine
need /usr/bin/time time
for tool in node npm cargo; do command -v "$tool" >/dev/null || die "$tool not found on PATH"; done

"$repo/scripts/install-test-peers"
verdaccio="$repo/.test-peers/node_modules/.bin/verdaccio"

build_finch

tmp=$(mktemp -d "${TMPDIR:-/tmp}/finch-bench.XXXXXX")
verdaccio_pid=""
cleanup() {
    if [ -n "$verdaccio_pid" ]; then
        kill "$verdaccio_pid" 2>/dev/null || true
        wait "$verdaccio_pid" 2>/dev/null || true
    fi
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# A sealed environment from here on (after cargo, which wants the real HOME).
export HOME="$tmp/home"
export FINCH_RUNTIME_HOME="$HOME/.finch"
export FINCH_AGENT_HOME="$HOME/finchnest"
export NO_COLOR=1
export npm_config_userconfig="$HOME/.npmrc"
export npm_config_update_notifier=false
export no_proxy=127.0.0.1 NO_PROXY=127.0.0.1
unset npm_config_registry NPM_CONFIG_REGISTRY http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY
mkdir -p "$HOME"
: >"$npm_config_userconfig"
results="$tmp/results"
mkdir -p "$results"

say "load average before measuring: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
hf() { hyperfine -N --style basic "$@" >&2; }

# --- finch list, 200 tools -------------------------------------------------------------------
say "installing $LIST_TOOLS generated mini tools with finch add <dir>"
node "$benches/gen-minitools.mjs" "$tmp/tools" "$LIST_TOOLS"
for dir in "$tmp"/tools/*/; do
    "$finch" add "$dir" >/dev/null
done
mapfile -t ids < <(ls "$tmp/tools")
odd_ids=()
for ((i = 0; i < ${#ids[@]}; i += 2)); do odd_ids+=("${ids[i]}"); done
"$finch" enable "${odd_ids[@]}" >/dev/null
listed=$("$finch" list | wc -l)
[ "$listed" = "$LIST_TOOLS" ] || die "finch list printed $listed lines, expected $LIST_TOOLS"

hf --warmup 10 --min-runs 100 --export-json "$results/list.json" \
    -n "finch list ($LIST_TOOLS tools)" "$(q "$finch") list"

say "peak RSS of finch list, $RSS_RUNS runs"
for ((i = 0; i < RSS_RUNS; i++)); do
    /usr/bin/time -f %M -o "$tmp/rss" "$finch" list >/dev/null
    cat "$tmp/rss" >>"$results/list-rss.txt"
done

# --- finch enable ----------------------------------------------------------------------------
toggle=${ids[1]}
hf --warmup 5 --min-runs 100 --export-json "$results/enable.json" \
    --prepare "$(q "$finch") disable $(q "$toggle")" \
    -n "finch enable <id>" "$(q "$finch") enable $(q "$toggle")"

# --- finch add <dir> -------------------------------------------------------------------------
node "$benches/gen-minitools.mjs" "$tmp/single" 1 bench-single
single="$tmp/single/bench-single-001"
"$finch" add "$single" >/dev/null
hf --warmup 5 --min-runs 50 --export-json "$results/add-dir.json" \
    -n "finch add <dir>" "$(q "$finch") add $(q "$single")"

# --- finch add <name> vs npm install, against a local verdaccio -----------------------------
vdir="$tmp/verdaccio"
mkdir -p "$vdir"
port=$(node "$benches/verdaccio.mjs" free-port)
registry="http://127.0.0.1:$port/"
node "$benches/verdaccio.mjs" config "$vdir" "$port"
say "starting verdaccio on $registry"
"$verdaccio" --config "$vdir/config.yaml" >"$vdir/verdaccio.log" 2>&1 &
verdaccio_pid=$!
node "$benches/verdaccio.mjs" wait "$registry" 30 || { cat "$vdir/verdaccio.log" >&2; die "verdaccio did not start"; }

node "$benches/gen-minitools.mjs" "$tmp/remote" 1 finch-bench-remote
remote_dir="$tmp/remote/finch-bench-remote-001"
remote_name=finch-bench-remote-001
tgz=$(cd "$remote_dir" && npm pack --ignore-scripts --silent --pack-destination "$tmp/remote")
node "$benches/verdaccio.mjs" publish "$registry" "$remote_dir" "$tmp/remote/$tgz"

finch_cache="$FINCH_RUNTIME_HOME/cache/minitools"
npm_prefix="$tmp/npm-prefix"
npm_cache="$tmp/npm-cache"
finch_add=("$finch" add "$remote_name" --registry "$registry")
npm_install=(npm install --prefix "$npm_prefix" --cache "$npm_cache" --ignore-scripts --no-audit --no-fund
    --no-update-notifier --registry "$registry" "$remote_name")

# One untimed run of each, checked, so a broken setup fails here and not as a fast error.
"${finch_add[@]}" >/dev/null
"$finch" list | grep -q "^$remote_name	" || die "finch add $remote_name did not install it"
mkdir -p "$npm_prefix"
"${npm_install[@]}" >/dev/null 2>&1 || die "npm install $remote_name failed"
[ -f "$npm_prefix/node_modules/$remote_name/package.json" ] || die "npm install did not install $remote_name"

npm_cache_note="cold on both sides: npm gets an emptied --prefix and a fresh --cache dir before every run; finch gets its download cache (<runtime>/cache/minitools) removed before every run"
echo "$npm_cache_note" >"$results/npm-cache.txt"
say "$npm_cache_note"
hf --warmup 2 --runs 20 --export-json "$results/add-name.json" \
    --prepare "rm -rf $(q "$finch_cache")" \
    -n "finch add <name>" "$(printf '%q ' "${finch_add[@]}")" \
    --prepare "bash -c $(q "rm -rf $(q "$npm_prefix") $(q "$npm_cache") && mkdir -p $(q "$npm_prefix")")" \
    -n "npm install <name>" "$(printf '%q ' "${npm_install[@]}")"

echo
node "$benches/report.mjs" "$results"
