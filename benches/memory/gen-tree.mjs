#!/usr/bin/env node
// Generates an agent home for the memory benchmark: ten years of daily logs
// (<agent>/memory/YYYY-MM-DD.md, 20–60 entries a day, realistic English sentences with some
// Chinese and a few accented words, a few multi-line entries with nested lists) and a MEMORY.md
// of 2,000 entries under headings. Deterministic: the same seed gives the same bytes.
//
//   node gen-tree.mjs <agent-home> [days=3650] [memory-entries=2000] [seed=7]
import fs from "node:fs";
import path from "node:path";

const [agent, daysArg = "3650", memArg = "2000", seedArg = "7"] = process.argv.slice(2);
if (!agent) {
  console.error("usage: gen-tree.mjs <agent-home> [days] [memory-entries] [seed]");
  process.exit(2);
}
const days = Number(daysArg);
const memoryEntries = Number(memArg);

// mulberry32: small, fast, deterministic.
let state = Number(seedArg) >>> 0;
function rand() {
  state = (state + 0x6d2b79f5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = (xs) => xs[Math.floor(rand() * xs.length)];
const chance = (p) => rand() < p;
const int = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));

const people = ["Ana", "Ben", "Chloé", "Dmitri", "Emma", "Farah", "Gus", "Hana", "Ivan", "Julia", "Kenji", "Lena", "Marco", "Nadia", "Omar", "Priya", "Quinn", "Rosa", "Sam", "Tomás", "Uma", "Victor", "Wen", "Yara", "Zoe"];
const projects = ["the billing service", "the mobile app", "the onboarding flow", "the data pipeline", "the search index", "the design system", "the quarterly report", "the migration to Postgres", "the kubernetes cluster", "the release notes", "the API gateway", "the customer portal", "the analytics dashboard", "the invoice exporter", "the sync engine"];
const verbs = ["reviewed", "fixed", "deployed", "discussed", "refactored", "tested", "documented", "planned", "shipped", "debugged", "measured", "rewrote", "cleaned up", "benchmarked", "paired on"];
const things = ["a flaky test in", "the error handling of", "the retry logic of", "the config of", "a memory leak in", "the caching layer of", "the permissions model of", "the build scripts of", "the on-call runbook for", "the logging in", "the latency of", "the schema of", "the rollout plan for", "the backlog of", "the dependencies of"];
const outcomes = ["It went better than expected.", "Still needs another pass tomorrow.", "Blocked on a review.", "Numbers look good now.", "Wrote down the open questions.", "Need to follow up next week.", "Everyone agreed on the plan.", "The root cause was a race condition.", "Turned out to be a timezone bug.", "Left a note in the tracker.", "Should have done this months ago.", "Time boxed it to an hour."];
const life = ["Went for a run along the river before work.", "Lunch with {p} at the café near the station.", "Bought groceries: eggs, spinach, rice and coffee beans.", "Called my parents in the evening.", "Read two chapters of a novel about a lighthouse keeper.", "Booked train tickets for the trip in spring.", "The dentist appointment moved to Thursday at 3pm.", "Tried a new recipe for lentil soup, too much salt.", "Cleaned the apartment and fixed the squeaky door.", "Watched a documentary about octopuses with {p}.", "Paid the electricity bill and renewed the passport form.", "Slept badly, the neighbours had a party.", "Repotted the basil and the small lemon tree.", "Walked to the bookshop and found a used atlas.", "Met {p} for coffee; talked about switching teams."];
const prefs = ["prefers short status updates in the morning", "likes green tea without sugar", "wants weekly summaries on Friday afternoon", "uses vim keybindings everywhere", "keeps notes in plain Markdown files", "does not like meetings before 10am", "prefers metric units", "works best with music off", "likes concrete examples over theory", "wants code reviews within a day", "reads email twice a day only", "prefers dark mode in every app"];
const zh = ["今天的天气很好，去公园散步了。", "和同事讨论了新的项目计划。", "晚上学习了一个小时的中文。", "明天要早起去机场。", "这个问题需要再想一想。", "周末和朋友一起吃火锅。", "把周报发给了经理。", "下午开会讨论了数据迁移。", "买了一本关于历史的书。", "记得给妈妈打电话。"];

function workSentence() {
  const v = pick(verbs);
  const s = `${v[0].toUpperCase()}${v.slice(1)} ${pick(things)} ${pick(projects)} with ${pick(people)}.`;
  return chance(0.7) ? `${s} ${pick(outcomes)}` : s;
}
function lifeSentence() {
  return pick(life).replace("{p}", pick(people));
}
function sentence() {
  const r = rand();
  if (r < 0.5) return workSentence();
  if (r < 0.82) return lifeSentence();
  if (r < 0.9) return pick(zh);
  return pick(outcomes);
}
// One to several sentences; about 2.7 on average.
function entryText() {
  let text = sentence();
  while (chance(0.63)) text += ` ${sentence()}`;
  return text;
}

function pad(n) {
  return String(n).padStart(2, "0");
}

const memoryDir = path.join(agent, "memory");
fs.mkdirSync(memoryDir, { recursive: true });
let bytes = 0;
const start = Date.UTC(2016, 0, 1);
for (let d = 0; d < days; d++) {
  const date = new Date(start + d * 86400000);
  const name = `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`;
  const lines = [`# ${name}`, ""];
  const n = int(20, 60);
  let minutes = int(6 * 60, 9 * 60);
  const sections = chance(0.3);
  for (let i = 0; i < n; i++) {
    if (sections && i === Math.floor(n / 2)) lines.push("", "## Afternoon", "");
    minutes = Math.min(minutes + int(3, 20), 23 * 60 + 59);
    const time = `${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`;
    lines.push(`- ${time} ${entryText()}`);
    if (chance(0.05)) {
      lines.push(`  ${lifeSentence()}`);
      lines.push(`    - ${pick(outcomes)}`);
    }
  }
  const text = lines.join("\n") + "\n";
  fs.writeFileSync(path.join(memoryDir, `${name}.md`), text);
  bytes += Buffer.byteLength(text);
}

const headings = ["Preferences", "People", "Projects", "Places", "Habits", "Tools"];
const mem = ["# Memory", ""];
for (let i = 0; i < memoryEntries; i++) {
  if (i % Math.ceil(memoryEntries / headings.length) === 0) {
    mem.push("", `## ${headings[Math.floor(i / Math.ceil(memoryEntries / headings.length))]}`, "");
  }
  const r = rand();
  const text =
    r < 0.4
      ? `The user ${pick(prefs)} (noted ${i}).`
      : r < 0.7
        ? `${pick(people)} works on ${pick(projects)} and ${pick(prefs)} (fact ${i}).`
        : r < 0.9
          ? `${workSentence()} (fact ${i})`
          : `${pick(zh)} (fact ${i})`;
  mem.push(`- ${text}`);
}
const memText = mem.join("\n") + "\n";
fs.writeFileSync(path.join(agent, "MEMORY.md"), memText);
bytes += Buffer.byteLength(memText);
console.error(`gen-tree: ${days} daily logs + MEMORY.md (${memoryEntries} entries), ${(bytes / 1e6).toFixed(1)} MB in ${agent}`);
