#!/usr/bin/env bash
# Benchmarks `finch session search` against ripgrep over the same transcripts:
#
#   2,000 generated pi-format transcripts (~200 MiB, benches/session/gen-transcripts.mjs) in
#   <runtime>/pi/sessions, searched for a rare word and a common word:
#     finch session search <word>      (ranked, top 20, snippets)
#     rg -i -n <word> <sessions dir>   (every matching line)
#   Target: finch's median time ≤ 2× ripgrep's.
#
# Both run with their output fed through a pipe (hyperfine --output=pipe): ripgrep stops after
# the first match of each file when its stdout is /dev/null, which would not be a search.
# Files are read once before measuring, so both run from the page cache.
#
# Builds `cargo build --release` first. Needs node (the generator), hyperfine, ripgrep and GNU
# time (the last three installed with apt-get when missing and running as root). Everything runs
# in one temp dir with its own HOME and runtime home, removed on exit, failure and Ctrl-C.
#
# usage: benches/session.sh [files] [total-MiB]     (default 2000 200)
# Prints hyperfine's progress on stderr and the final table on stdout.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
here="$repo/benches/session"

FILES=${1:-2000}
MIB=${2:-200}
RARE=quetzalcoatl
COMMON=refactor
RSS_RUNS=7

need hyperfine
need rg ripgrep
need /usr/bin/time time
for tool in node cargo; do command -v "$tool" >/dev/null || die "$tool not found on PATH"; done

build_finch

tmp=$(mktemp -d "${TMPDIR:-/tmp}/finch-bench-session.XXXXXX")
cleanup() { rm -rf "$tmp"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

export HOME="$tmp/home"
export FINCH_RUNTIME_HOME="$HOME/.finch"
export FINCH_AGENT_HOME="$HOME/finchnest"
export NO_COLOR=1
sessions="$FINCH_RUNTIME_HOME/pi/sessions"
results="$tmp/results"
mkdir -p "$HOME" "$results"

say "generating $FILES transcripts (~$MIB MiB) into $sessions"
node "$here/gen-transcripts.mjs" "$sessions" "$FILES" "$MIB"
du -sb "$sessions" | cut -f1 >"$results/bytes.txt"
find "$sessions" -name '*.jsonl' | wc -l >"$results/files.txt"
# Into the page cache, for both tools alike.
find "$sessions" -name '*.jsonl' -exec cat {} + >/dev/null

# One checked run of each, so a broken setup fails here and not as a fast error.
for word in "$RARE" "$COMMON"; do
    hits=$("$finch" session search "$word" --limit 0 | wc -l)
    lines=$(rg -i -n "$word" "$sessions" | wc -l)
    [ "$hits" -gt 0 ] || die "finch session search $word found nothing"
    [ "$lines" -gt 0 ] || die "rg $word found nothing"
    say "$word: finch ranks $hits entries, rg prints $lines lines"
    echo "$word $hits $lines" >>"$results/counts.txt"
done

say "load average before measuring: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
for word in "$RARE" "$COMMON"; do
    hyperfine -N --style basic --output=pipe --warmup 3 --min-runs 15 \
        --export-json "$results/search-$word.json" \
        -n "finch session search $word" "$(q "$finch") session search $(q "$word")" \
        -n "rg -i -n $word" "rg -i -n $(q "$word") $(q "$sessions")" >&2
    for ((i = 0; i < RSS_RUNS; i++)); do
        /usr/bin/time -f %M -o "$tmp/rss" "$finch" session search "$word" >/dev/null
        cat "$tmp/rss" >>"$results/rss-finch-$word.txt"
        /usr/bin/time -f %M -o "$tmp/rss" rg -i -n "$word" "$sessions" | cat >/dev/null
        cat "$tmp/rss" >>"$results/rss-rg-$word.txt"
    done
done
say "load average after measuring: $(cut -d' ' -f1-3 /proc/loadavg)"

echo
node "$here/report.mjs" "$results" "$RARE" "$COMMON"
