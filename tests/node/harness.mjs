// Shared by the node:test files here: run the finch binary named by FINCH_BIN in sealed homes.
// These tests exercise, through the real binary, what callers of the official Node CLI rely on
// (its output lines, exit codes and state files). They install nothing and use no network.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const bin = process.env.FINCH_BIN;
if (!bin) throw new Error('set FINCH_BIN to the finch binary');

/** A temp root with its own HOME, runtime home and agent home; removed by `done()`. */
export function sandbox() {
  const root = mkdtempSync(join(tmpdir(), 'finch-node-harness-'));
  const runtime = join(root, 'runtime');
  const agent = join(root, 'agent');
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: join(root, 'home'),
    FINCH_RUNTIME_HOME: runtime,
    FINCH_AGENT_HOME: agent,
    NO_COLOR: '1',
  };
  return {
    root,
    runtime,
    agent,
    personal: join(agent, '.finch', 'extensions'),
    state: join(runtime, 'extensions.json'),
    finch(args, { cwd = root } = {}) {
      const r = spawnSync(bin, args, { env, cwd, encoding: 'utf-8', stdio: ['ignore', 'pipe', 'pipe'] });
      if (r.error) throw r.error;
      return r;
    },
    done() { rmSync(root, { recursive: true, force: true }); },
  };
}

/** A mini tool package at `dir`: package.json with a `finch` object (no manifestVersion unless
 * given) and a built entry. */
export function writeTool(dir, { name, version = '1.0.0', finch = {}, entry = true } = {}) {
  mkdirSync(join(dir, 'dist'), { recursive: true });
  if (entry) writeFileSync(join(dir, 'dist', 'index.js'), 'export function activate(ctx) {}\n');
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version, main: 'dist/index.js', finch }, null, 2));
  return dir;
}
