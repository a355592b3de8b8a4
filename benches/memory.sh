#!/usr/bin/env bash
# Benchmarks ranked `finch memory search <query>` against `rg -i -n <query>` and `grep -rin <query>`
# over the same agent home: 3,650 generated daily logs (ten years, 20–60 entries a day, English
# with some Chinese, ~26 MB) plus a MEMORY.md of 2,000 entries (benches/memory/gen-tree.mjs).
# Target (the issue that asked for it): finch's median ≤ 2× ripgrep's, peak RSS ≤ 64 MiB.
#
#   benches/memory.sh [query …]     default queries: passport kubernetes 天气 "lentil soup"
#
# Builds `cargo build --release` first. Needs node (the generator), hyperfine, ripgrep and GNU
# time (installed with apt-get when missing and running as root). Everything runs in one temp dir
# with its own HOME and homes, removed on exit, on failure and on Ctrl-C. Prints hyperfine's
# progress on stderr and the table of medians, ratios and peak RSS on stdout.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

RUNS=${MEMORY_BENCH_RUNS:-30}
RSS_RUNS=11
if [ $# -gt 0 ]; then queries=("$@"); else queries=(passport kubernetes 天气 "lentil soup"); fi

need hyperfine
need rg ripgrep
need /usr/bin/time time
for tool in node cargo grep; do command -v "$tool" >/dev/null || die "$tool not found on PATH"; done

build_finch

tmp=$(mktemp -d "${TMPDIR:-/tmp}/finch-memory-bench.XXXXXX")
cleanup() { rm -rf "$tmp"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# A sealed environment from here on (after cargo, which wants the real HOME).
export HOME="$tmp/home"
export FINCH_RUNTIME_HOME="$HOME/.finch"
export FINCH_AGENT_HOME="$HOME/finchnest"
export NO_COLOR=1
unset FINCH_NOW RIPGREP_CONFIG_PATH GREP_OPTIONS
mkdir -p "$HOME"
agent="$FINCH_AGENT_HOME"
results="$tmp/results"
mkdir -p "$results"

node "$repo/benches/memory/gen-tree.mjs" "$agent"
say "tree: $(find "$agent" -name '*.md' | wc -l) files, $(du -sb "$agent" | cut -f1) bytes"
say "load average before measuring: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"

n=0
for query in "${queries[@]}"; do
    n=$((n + 1))
    # Checked once untimed, so that a broken setup fails here and not as a fast error.
    hits=$("$finch" memory search --limit 0 "$query" | wc -l)
    lines=$(rg -i -n -- "$query" "$agent" | wc -l)
    [ "$hits" -gt 0 ] || die "finch memory search $query found nothing"
    say "\"$query\": finch ranks $hits entries, rg prints $lines lines"
    printf '%s\n' "$query" >"$results/$n.query"
    hyperfine -N --style basic --warmup 5 --runs "$RUNS" --export-json "$results/$n.json" \
        -n finch "$(q "$finch") memory search $(q "$query")" \
        -n rg "rg -i -n -- $(q "$query") $(q "$agent")" \
        -n grep "grep -rin -- $(q "$query") $(q "$agent")" >&2
    for ((i = 0; i < RSS_RUNS; i++)); do
        /usr/bin/time -f %M -o "$tmp/rss" "$finch" memory search "$query" >/dev/null
        cat "$tmp/rss" >>"$results/$n.rss"
    done
done

# The report: medians from hyperfine's JSON, peak RSS as the largest of the runs.
node - "$results" "$n" <<'EOF'
const fs = require("fs");
const [dir, count] = process.argv.slice(2);
const ms = (s) => (s * 1000).toFixed(1);
const rows = [];
for (let i = 1; i <= Number(count); i++) {
  const query = fs.readFileSync(`${dir}/${i}.query`, "utf8").trim();
  const r = JSON.parse(fs.readFileSync(`${dir}/${i}.json`, "utf8")).results;
  const med = Object.fromEntries(r.map((x) => [x.command, x.median]));
  const rss = fs.readFileSync(`${dir}/${i}.rss`, "utf8").trim().split("\n").map(Number);
  rows.push([query, ms(med.finch), ms(med.rg), ms(med.grep), (med.finch / med.rg).toFixed(2),
    (med.finch / med.grep).toFixed(2), (Math.max(...rss) / 1024).toFixed(1)]);
}
const head = ["query", "finch ms", "rg -i -n ms", "grep -rin ms", "finch/rg", "finch/grep", "finch peak RSS MiB"];
const width = head.map((h, c) => Math.max(h.length, ...rows.map((r) => [...r[c]].length)));
const line = (cells) => cells.map((x, c) => x + " ".repeat(width[c] - [...x].length)).join("  ").trimEnd();
console.log("median of each, over the same tree; target: finch/rg ≤ 2.00, peak RSS ≤ 64 MiB");
console.log(line(head));
for (const r of rows) console.log(line(r));
EOF
