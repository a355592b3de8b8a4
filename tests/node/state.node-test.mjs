// extensions.json as the app reads and writes it, error lines, and `where`.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import test from 'node:test';
import { sandbox, writeTool } from './harness.mjs';

test('enable writes the documented schema and folds a legacy plugins map', (t) => {
  const s = sandbox();
  t.after(() => s.done());
  const first = s.finch(['enable', 'alpha']);
  assert.equal(first.status, 0, first.stderr);
  assert.equal(first.stdout.split('\n')[0], '✓ Enabled alpha');
  assert.deepEqual(JSON.parse(readFileSync(s.state, 'utf-8')), {
    enabled: ['alpha'], extensions: { alpha: { enabled: true } }, autoUpdate: false,
  });

  writeFileSync(s.state, JSON.stringify({ plugins: { old: { enabled: true, grantedPermissions: { shell: true } } } }));
  assert.equal(s.finch(['disable', 'beta']).stdout, '✓ Disabled beta\n');
  assert.deepEqual(JSON.parse(readFileSync(s.state, 'utf-8')), {
    enabled: ['old'],
    extensions: { old: { enabled: true, grantedPermissions: { shell: true } }, beta: { enabled: false } },
    autoUpdate: false,
  });
});

test('a corrupt extensions.json still lists every tool and is left alone', (t) => {
  const s = sandbox();
  t.after(() => s.done());
  const tool = writeTool(join(s.root, 'tool'), { name: 'tool', finch: { name: 'Tool' } });
  assert.equal(s.finch(['add', tool]).status, 0);
  mkdirSync(s.runtime, { recursive: true });
  writeFileSync(s.state, '{"enabled": [');
  const r = s.finch(['list']);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, `tool\t1.0.0\tdisabled\tTool\t${join(s.personal, 'tool')}\n`);
  assert.match(r.stderr, /^warning: .*extensions\.json.*finch doctor --state/);
  assert.equal(readFileSync(s.state, 'utf-8'), '{"enabled": [');
});

test('every error starts with "Error: ", usage errors included (exit 2)', (t) => {
  const s = sandbox();
  t.after(() => s.done());
  for (const args of [['remove'], ['list', '--bogus'], ['nonsense']]) {
    const r = s.finch(args);
    assert.equal(r.status, 2, args.join(' '));
    assert.match(r.stderr, /^Error: /, args.join(' '));
  }
  const missing = s.finch(['remove', 'ghost']);
  assert.equal(missing.status, 3);
  assert.match(missing.stderr, /^Error: "ghost" is not installed/);
});

test('where starts with the Personal:, Global: and State: lines', (t) => {
  const s = sandbox();
  t.after(() => s.done());
  const lines = s.finch(['where']).stdout.split('\n');
  assert.deepEqual(lines.slice(0, 3), [
    `Personal: ${s.personal}`,
    `Global:   ${join(s.runtime, 'extensions')}`,
    `State:    ${s.state}`,
  ]);
});
