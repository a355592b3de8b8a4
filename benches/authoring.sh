#!/usr/bin/env bash
# `finch test` of a package with 20 cases that need no network (issue 32: at most 1.5 s):
#
#   benches/authoring.sh [FINCH]
#
# Makes a package with `finch new` in a throw-away directory, installs its esbuild offline from
# the test peers' npm cache (scripts/install-test-peers), builds it, writes 20 cases into
# finch.test.json (greet with 20 names, each checked with equals, structuredContent and the
# permission verdict), and times `finch test --no-build` with hyperfine (the build is not part
# of the figure: `finch test` skips it when the bundle is newer than the sources). FINCH
# defaults to the release build. Prints hyperfine's table on stdout.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need hyperfine
if [ $# -ge 1 ]; then finch=$1; else build_finch; fi
cache="$repo/.test-peers/npm-cache"
[ -d "$cache" ] || die "no $cache: run scripts/install-test-peers"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/finch-authoring.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
export HOME="$tmp/home" FINCH_RUNTIME_HOME="$tmp/home/.finch" FINCH_AGENT_HOME="$tmp/home/finchnest" NO_COLOR=1
mkdir -p "$HOME"
"$finch" new "$tmp/pkg" --id bench-greet >/dev/null 2>&1
(cd "$tmp/pkg" && npm install --offline --no-audit --no-fund --loglevel=error --cache "$cache" >/dev/null 2>&1 && npm run build --silent >/dev/null 2>&1)
node -e '
const cases = [];
for (let i = 1; i <= 20; i++) {
  const name = "person" + i;
  cases.push({ name: "greets " + name, tool: "greet", args: { name },
    expect: { equals: "Hello, " + name + "!", structuredContent: { length: name.length }, permission: "ask", isError: false } });
}
require("fs").writeFileSync(process.argv[1], JSON.stringify({ cases }, null, 2));
' "$tmp/pkg/finch.test.json"
"$finch" test "$tmp/pkg" --no-build >/dev/null || die "the 20 cases do not pass"
say "load average before measuring: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
hyperfine -N --warmup 2 --runs 15 --export-markdown "$tmp/table.md" \
    "$(q "$finch") test $(q "$tmp/pkg") --no-build" >&2
cat "$tmp/table.md"
