// Writes <count> small mini tool directories into <out-dir> for scripts/bench: each one a
// package.json with a `finch` manifest (SPEC §3.1), a built ES module entry and a README, the
// shape `finch add <dir>` installs. Names are <prefix>-001 … <prefix>-<count>; every file is
// deterministic, so two runs give the same bytes.
//
// usage: node benches/gen-minitools.mjs <out-dir> <count> [prefix]
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const [outDir, countText, prefix = "bench-tool"] = process.argv.slice(2);
const count = Number.parseInt(countText ?? "", 10);
if (!outDir || !Number.isInteger(count) || count < 1) {
  console.error("usage: node benches/gen-minitools.mjs <out-dir> <count> [prefix]");
  process.exit(2);
}

const width = String(count).length < 3 ? 3 : String(count).length;
for (let i = 1; i <= count; i++) {
  const name = `${prefix}-${String(i).padStart(width, "0")}`;
  const dir = join(outDir, name);
  mkdirSync(join(dir, "dist"), { recursive: true });
  const pkg = {
    name,
    version: `1.${i % 10}.${i}`,
    description: `Benchmark mini tool number ${i}`,
    type: "module",
    main: "dist/index.js",
    finch: {
      manifestVersion: 1,
      displayName: `Bench Tool ${i}`,
      description: { default: `Benchmark mini tool number ${i}`, "zh-CN": `基准测试工具 ${i}` },
      activationEvents: ["onStartup"],
      contributes: { tools: true },
      permissions: { filesystem: "read", network: i % 2 === 0 },
      categories: ["benchmark"],
    },
  };
  writeFileSync(join(dir, "package.json"), JSON.stringify(pkg, null, 2) + "\n");
  writeFileSync(
    join(dir, "dist/index.js"),
    `export async function activate(ctx) {\n` +
      `  ctx.tools?.register?.({ name: "echo_${i}", description: "Echo its input", ` +
      `execute: async (input) => input });\n}\nexport function deactivate() {}\n`,
  );
  writeFileSync(join(dir, "README.md"), `# Bench Tool ${i}\n\nA generated mini tool for finch's benchmarks.\n`);
}
console.error(`gen-minitools: wrote ${count} mini tools to ${outDir}`);
