#!/usr/bin/env bash
# finch through npm (issue 17): the tarball sizes of `scripts/package-npm` (release build), and
# `finch list` with 200 installed mini tools run four ways:
#
#   finch list                         the release binary, directly
#   <prefix>/bin/finch list            the npm launcher (node) of `npm i -g finch-minitools`
#   npx finch-minitools list           npx, package already in npx's cache (a second run)
#   node minitools.official.mjs list   the official CLI, when MINITOOLS_OFFICIAL names a copy
#                                      of its bin/minitools.mjs (default: /work/ext/minitools-cli/
#                                      bin/minitools.official.mjs if it is there; never committed)
#   npx <official> list                the same copy packed as a package of the loopback registry
#                                      (finch-bench-official-minitools), run as `npx` runs
#                                      @finchtoys/minitools: npx's own cost on both sides
#
# The packages are published to a verdaccio this script starts on 127.0.0.1 and installed from
# it; the 200 tools are made by benches/list-home.sh. FINCH=<binary> packs that binary instead
# of running `cargo build --release`. Needs node + npm, verdaccio
# (scripts/install-test-peers), hyperfine. Everything lives in one temp dir, removed on exit.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
benches="$repo/benches"
need hyperfine
"$repo/scripts/install-test-peers"
verdaccio="$repo/.test-peers/node_modules/.bin/verdaccio"
official=${MINITOOLS_OFFICIAL:-/work/ext/minitools-cli/bin/minitools.official.mjs}

# FINCH=<binary> measures that binary instead of building one.
if [ -n "${FINCH:-}" ]; then finch=$FINCH; else build_finch; fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/finch-bench-npm.XXXXXX")
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

say "packing the npm packages from $finch"
mapfile -t tarballs < <("$repo/scripts/package-npm" --binary "$finch" --out "$tmp/tarballs")

bash "$benches/list-home.sh" "$finch" "$tmp/home" 200
export HOME="$tmp/home" FINCH_RUNTIME_HOME="$tmp/home/.finch" FINCH_AGENT_HOME="$tmp/home/finchnest" NO_COLOR=1
export npm_config_userconfig="$tmp/npmrc" npm_config_cache="$tmp/npm-cache"
export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
export no_proxy=127.0.0.1 NO_PROXY=127.0.0.1
unset npm_config_registry NPM_CONFIG_REGISTRY http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY

mkdir -p "$tmp/verdaccio"
port=$(node "$benches/verdaccio.mjs" free-port)
registry="http://127.0.0.1:$port/"
node "$benches/verdaccio.mjs" config "$tmp/verdaccio" "$port"
# A publish document carries its tarball: the binary is far over verdaccio's 10 MB default.
echo "max_body_size: 300mb" >>"$tmp/verdaccio/config.yaml"
"$verdaccio" --config "$tmp/verdaccio/config.yaml" >"$tmp/verdaccio/verdaccio.log" 2>&1 &
verdaccio_pid=$!
node "$benches/verdaccio.mjs" wait "$registry" 30 || { cat "$tmp/verdaccio/verdaccio.log" >&2; die "verdaccio did not start"; }
token=$(node -e '
    fetch(process.argv[1] + "-/user/org.couchdb.user:bench", { method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "bench", password: "finch-bench-password", type: "user", roles: [] }) })
      .then((r) => r.json()).then((j) => console.log(j.token));' "$registry")
printf 'registry=%s\n//127.0.0.1:%s/:_authToken=%s\n' "$registry" "$port" "$token" >"$npm_config_userconfig"
for tgz in "${tarballs[@]}"; do npm publish "$tgz" --silent >/dev/null; done
npm install -g --prefix "$tmp/prefix" finch-minitools --silent >/dev/null
shim="$tmp/prefix/bin/finch"

cd "$tmp/home"
expected=$("$finch" list)
[ "$("$shim" list)" = "$expected" ] || die "the launcher's list differs from finch's"
[ "$(npx --yes finch-minitools list)" = "$expected" ] || die "npx finch-minitools list differs from finch's"
commands=(-n "finch list (direct)" "$(q "$finch") list"
    -n "npm launcher: finch list" "$(q "$shim") list"
    -n "npx finch-minitools list (cached)" "npx --yes finch-minitools list")
if [ -f "$official" ]; then
    [ "$(node "$official" list | sort)" = "$(sort <<<"$expected")" ] || say "warning: the official CLI lists other lines"
    # The official CLI has no dependencies: its one file is a package of its own.
    pkg="$tmp/official-pkg"
    mkdir -p "$pkg/bin"
    cp "$official" "$pkg/bin/minitools.mjs"
    printf '{"name":"finch-bench-official-minitools","version":"0.0.0","bin":{"minitools":"bin/minitools.mjs"}}\n' >"$pkg/package.json"
    official_tgz=$(cd "$pkg" && npm pack --silent --pack-destination "$tmp")
    npm publish "$tmp/$official_tgz" --silent >/dev/null
    npx --yes finch-bench-official-minitools list >/dev/null
    commands+=(-n "node minitools.official.mjs list" "node $(q "$official") list"
        -n "npx <official CLI> list (cached)" "npx --yes finch-bench-official-minitools list")
else
    say "no official CLI at $official (set MINITOOLS_OFFICIAL): measuring finch only"
fi
say "load average before measuring: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
hyperfine -N --style basic --warmup 3 --min-runs 20 --export-markdown "$tmp/list.md" "${commands[@]}" >&2

echo "## npm tarballs (scripts/package-npm, release build)"
for tgz in "${tarballs[@]}"; do
    printf -- '- %s: %s bytes (%s MB)\n' "$(basename "$tgz")" "$(wc -c <"$tgz" | tr -d ' ')" \
        "$(node -e 'console.log((Number(process.argv[1]) / 1e6).toFixed(1))' "$(wc -c <"$tgz")")"
done
echo
echo "## finch list, 200 mini tools"
cat "$tmp/list.md"
