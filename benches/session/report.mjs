// Prints the table of benches/session.sh from the files it wrote into <results-dir>:
//   search-<word>.json      hyperfine --export-json: finch first, then rg
//   rss-finch-<word>.txt, rss-rg-<word>.txt   peak RSS in KiB, one run per line
//   counts.txt              "<word> <finch hits> <rg lines>" per word
//   bytes.txt, files.txt    size and number of the transcripts
//
// usage: node report.mjs <results-dir> <word>...
import { readFileSync } from "node:fs";
import { join } from "node:path";

const [dir, ...words] = process.argv.slice(2);
const read = (name) => readFileSync(join(dir, name), "utf8").trim();
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const rss = (name) => median(read(name).split(/\s+/).map(Number)) / 1024;
const counts = Object.fromEntries(
  read("counts.txt").split("\n").map((l) => {
    const [w, hits, lines] = l.split(" ");
    return [w, { hits, lines }];
  }),
);

const mib = Number(read("bytes.txt")) / 1024 / 1024;
console.log(`${read("files.txt")} transcripts, ${mib.toFixed(0)} MiB; target: finch ≤ 2× rg`);
console.log();
const rows = [
  ["query", "finch median", "rg median", "ratio", "target", "finch RSS", "rg RSS", "hits / rg lines"],
];
for (const word of words) {
  const [finch, rg] = JSON.parse(read(`search-${word}.json`)).results.map((r) => r.median * 1000);
  const ratio = finch / rg;
  rows.push([
    word,
    `${finch.toFixed(1)} ms`,
    `${rg.toFixed(1)} ms`,
    `${ratio.toFixed(2)}×`,
    ratio <= 2 ? "met" : "MISSED",
    `${rss(`rss-finch-${word}.txt`).toFixed(1)} MiB`,
    `${rss(`rss-rg-${word}.txt`).toFixed(1)} MiB`,
    `${counts[word].hits} / ${counts[word].lines}`,
  ]);
}
const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
for (const row of rows) {
  console.log(row.map((cell, i) => cell.padEnd(widths[i])).join("  ").trimEnd());
}
