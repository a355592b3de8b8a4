// Prints the final table of scripts/bench from the files it wrote into <results-dir>:
//   list.json, enable.json, add-dir.json  hyperfine --export-json of one finch command each
//   add-name.json                         hyperfine of `finch add <name>` then `npm install <name>`
//   list-rss.txt                          peak RSS of `finch list`, KiB, one run per line
//   npm-cache.txt                         how npm's cache was handled (one line)
// Targets and the official Node CLI's numbers come from the issue that asked for finch.
//
// usage: node benches/report.mjs <results-dir>
import { readFileSync } from "node:fs";
import { join } from "node:path";

const dir = process.argv[2];
const hyperfine = (name) => JSON.parse(readFileSync(join(dir, name), "utf8")).results;
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const ms = (seconds) => seconds * 1000;
const fmtMs = (v) => `${v.toFixed(v < 10 ? 2 : 1)} ms`;
const fmtMiB = (v) => `${v.toFixed(2)} MiB`;
const fmtX = (v) => `${v.toFixed(1)}×`;

const list = ms(hyperfine("list.json")[0].median);
const enable = ms(hyperfine("enable.json")[0].median);
const addDir = ms(hyperfine("add-dir.json")[0].median);
const [finchAdd, npmInstall] = hyperfine("add-name.json").map((r) => ms(r.median));
const rssRuns = readFileSync(join(dir, "list-rss.txt"), "utf8").trim().split(/\s+/).map(Number);
const rss = median(rssRuns) / 1024;
const npmCache = readFileSync(join(dir, "npm-cache.txt"), "utf8").trim();

const within = (ok) => (ok ? "met" : "MISSED");
const rows = [
  ["finch list (200 tools)", fmtMs(list), "≤ 5 ms", within(list <= 5), "89 ms", fmtX(89 / list)],
  ["finch list peak RSS", fmtMiB(rss), "≤ 8 MiB", within(rss <= 8), "50 MiB", fmtX(50 / rss)],
  ["finch enable <id>", fmtMs(enable), "≤ 3 ms", within(enable <= 3), "75 ms", fmtX(75 / enable)],
  ["finch add <dir>", fmtMs(addDir), "≤ 10 ms", within(addDir <= 10), "82 ms", fmtX(82 / addDir)],
  [
    "finch add <name> (verdaccio)",
    fmtMs(finchAdd),
    "≥ 5× faster than npm install",
    within(npmInstall / finchAdd >= 5),
    `npm install ${fmtMs(npmInstall)}`,
    fmtX(npmInstall / finchAdd),
  ],
];
const header = ["measurement", "finch median", "target (issue)", "target", "reference", "reference / finch"];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
const line = (cells) => cells.map((c, i) => c.padEnd(widths[i])).join("  ").trimEnd();
console.log(line(header));
console.log(line(widths.map((w) => "-".repeat(w))));
for (const row of rows) console.log(line(row));
console.log();
console.log("reference: list, RSS, enable and add <dir> are the official Node CLI's numbers quoted in the issue;");
console.log("           add <name> is `npm install` measured here against the same verdaccio.");
console.log(`caches for add <name>: ${npmCache}`);
console.log(`peak RSS: median of ${rssRuns.length} runs of /usr/bin/time -f %M (KiB: ${rssRuns.join(" ")})`);
