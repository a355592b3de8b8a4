// Generates pi-format session transcripts (SPEC §7) for benches/session.sh:
//   <sessions-dir>/--<workspace slug>--/<ISO timestamp with : and . as ->_<uuid>.jsonl
// Each file: a session header, then user/assistant/toolResult message entries (text, thinking,
// tool calls, long tool outputs), the odd model change and session_info, with words drawn from a
// Zipf-distributed vocabulary so that some words are common and others rare. A few messages hold
// accented or CJK text. Deterministic: the same arguments give the same bytes.
//
// Planted words, for queries with a known number of hits:
//   "quetzalcoatl"  in about 1 of 4000 messages (rare)
//   "refactor"      in about 1 of 12 messages (common)
//
// usage: node gen-transcripts.mjs <sessions-dir> <files> <total-MiB>
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const [dir, filesArg = "2000", mibArg = "200"] = process.argv.slice(2);
if (!dir) {
  console.error("usage: node gen-transcripts.mjs <sessions-dir> <files> <total-MiB>");
  process.exit(2);
}
const files = Number(filesArg);
const targetBytes = Number(mibArg) * 1024 * 1024;

// mulberry32: small, fast, deterministic.
let seed = 0x5eed1234;
const rand = () => {
  seed |= 0;
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const pick = (xs) => xs[Math.floor(rand() * xs.length)];
const int = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));
const hex = (n) => Array.from({ length: n }, () => "0123456789abcdef"[int(0, 15)]).join("");
const uuid = () =>
  `${hex(8)}-${hex(4)}-4${hex(3)}-${pick(["8", "9", "a", "b"])}${hex(3)}-${hex(12)}`;

const common = ("the of and to in is it that for on with as this be at by from or an are not " +
  "file function error test build run value return type code data line path config module " +
  "update change check use need make add fix new set get list read write call server client " +
  "request response user session tool result output input string number object array").split(" ");
const syllables = "ka lo mi ne ru ta shi po ve da gri sol tem var xen bo lu fa ze qui".split(" ");
const vocab = [...common];
while (vocab.length < 4000) {
  vocab.push(Array.from({ length: int(2, 4) }, () => pick(syllables)).join(""));
}
// Zipf weights, as a cumulative table for binary search.
const cumulative = [];
let total = 0;
for (let i = 0; i < vocab.length; i++) {
  total += 1 / (i + 1);
  cumulative.push(total);
}
const word = () => {
  const x = rand() * total;
  let lo = 0;
  let hi = cumulative.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cumulative[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return vocab[lo];
};
const sentence = (n) => {
  const words = Array.from({ length: n }, word);
  if (rand() < 1 / 4000) words[int(0, n - 1)] = "quetzalcoatl";
  if (rand() < 1 / 12) words[int(0, n - 1)] = "refactor";
  const foreign = ["café crème", "naïve façade", "天气预报", "Straße", "日本語のテキスト"];
  if (rand() < 0.02) words.push(pick(foreign));
  return words.join(" ");
};
const outputLines = (n) =>
  Array.from({ length: n }, () => pick(["  ", "", "    "]) + sentence(int(4, 14))).join("\n");

const tools = ["read", "bash", "edit", "write", "grep", "find"];
const workspaces = Array.from({ length: 40 }, (_, i) => `/home/dev/projects/${vocab[100 + i]}-${i}`);
const slug = (cwd) => `--${cwd.replace(/^\//, "").replace(/\//g, "-")}--`;

let start = Date.parse("2026-01-01T08:00:00.000Z");
let written = 0;
for (let f = 0; f < files; f++) {
  const cwd = pick(workspaces);
  const sessionDir = join(dir, slug(cwd));
  mkdirSync(sessionDir, { recursive: true });
  start += int(60_000, 3_600_000);
  let clock = start;
  const stamp = () => new Date((clock += int(500, 60_000))).toISOString();
  const id = uuid();
  const started = new Date(start).toISOString();
  const lines = [JSON.stringify({ type: "session", version: 3, id, timestamp: started, cwd })];
  let parent = null;
  const push = (entry) => {
    const eid = hex(8);
    const head = { type: entry.type, id: eid, parentId: parent, timestamp: stamp() };
    lines.push(JSON.stringify({ ...head, ...entry }));
    parent = eid;
  };
  // Spread the remaining bytes over the remaining files, with some variation.
  const budget = ((targetBytes - written) / (files - f)) * (0.5 + rand());
  let size = lines[0].length;
  while (size < budget) {
    const before = lines.length;
    const text = (t) => [{ type: "text", text: t }];
    push({
      type: "message",
      message: { role: "user", content: text(sentence(int(5, 40))), timestamp: clock },
    });
    const calls = Array.from({ length: int(0, 2) }, () => {
      const name = pick(tools);
      const args = name === "bash"
        ? { command: `${word()} --${word()} ${word()}` }
        : { path: `src/${word()}/${word()}.rs` };
      return { type: "toolCall", id: `call_${hex(12)}`, name, arguments: args };
    });
    const content = [];
    if (rand() < 0.3) content.push({ type: "thinking", thinking: sentence(int(10, 60)) });
    content.push(...text(sentence(int(20, 120))));
    const usage = { input: int(100, 9000), output: int(10, 900), cacheRead: 0, cacheWrite: 0 };
    push({
      type: "message",
      message: {
        role: "assistant",
        content: [...content, ...calls],
        api: "messages",
        provider: "anthropic",
        model: "claude-sonnet-4-5",
        usage: { ...usage, totalTokens: usage.input + usage.output },
        stopReason: calls.length ? "toolUse" : "stop",
        timestamp: clock,
      },
    });
    for (const call of calls) {
      push({
        type: "message",
        message: {
          role: "toolResult",
          toolCallId: call.id,
          toolName: call.name,
          content: text(outputLines(int(5, 60))),
          isError: rand() < 0.05,
          timestamp: clock,
        },
      });
    }
    if (rand() < 0.02) push({ type: "model_change", provider: "openai", modelId: "gpt-5" });
    if (rand() < 0.01) push({ type: "session_info", name: sentence(int(2, 5)) });
    for (let i = before; i < lines.length; i++) size += lines[i].length + 1;
  }
  const name = `${started.replace(/[:.]/g, "-")}_${id}.jsonl`;
  const text = lines.join("\n") + "\n";
  writeFileSync(join(sessionDir, name), text);
  written += Buffer.byteLength(text);
}
console.error(`wrote ${files} transcripts, ${(written / 1024 / 1024).toFixed(1)} MiB, into ${dir}`);
