// add / list / update / remove / doctor as a script or the app sees them.
import assert from 'node:assert/strict';
import { existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import test from 'node:test';
import { sandbox, writeTool } from './harness.mjs';

test('a dev link of a package without manifestVersion lists, refuses update, and removes', (t) => {
  const s = sandbox();
  t.after(() => s.done());
  const src = writeTool(join(s.root, 'src'), { name: '@acme/linked', version: '0.4.0', finch: { name: 'Linked' } });

  const added = s.finch(['add', src, '--dev']);
  assert.equal(added.status, 0, added.stderr);
  const link = join(s.personal, 'acme@linked');
  assert.equal(added.stdout.split('\n')[0], `✓ Linked "Linked" (acme@linked) → ${src}`);
  assert.ok(lstatSync(link).isSymbolicLink());
  assert.equal(readlinkSync(link), src);
  assert.equal(existsSync(join(src, '.finch-id')), false, 'the source stays untouched');
  const record = JSON.parse(readFileSync(join(s.personal, '.plugins-lock.json'), 'utf-8'))['acme@linked'];
  assert.deepEqual([record.type, record.mode, record.linked, record.localPath], ['dev', 'development', true, src]);

  const listed = s.finch(['list']);
  assert.equal(listed.stdout, `acme@linked\t0.4.0\tdisabled,linked\tLinked\t${link}\n`);

  const updated = s.finch(['update', 'acme@linked']);
  assert.equal(updated.status, 1);
  assert.match(updated.stderr, /^Error: "acme@linked" is a development link and cannot be updated/);

  const removed = s.finch(['remove', 'acme@linked']);
  assert.equal(removed.status, 0, removed.stderr);
  assert.equal(removed.stdout, '✓ Removed acme@linked\n');
  assert.equal(existsSync(link), false);
  assert.ok(existsSync(join(src, 'package.json')));
});

test('--dev with an npm spec or an archive exits 1 and installs nothing', (t) => {
  const s = sandbox();
  t.after(() => s.done());
  const npm = s.finch(['add', 'some-tool@2', '-d']);
  assert.equal(npm.status, 1);
  assert.match(npm.stderr, /^Error: --dev only supports a local extension directory/);
  const tgz = join(s.root, 'tool.tgz');
  writeFileSync(tgz, 'not really gzip');
  const archive = s.finch(['add', tgz, '-d']);
  assert.equal(archive.status, 1);
  assert.match(archive.stderr, /^Error: --dev requires a directory, not an archive/);
  assert.equal(existsSync(s.personal), false);
});

test('doctor: permission bits and secret patterns, in the official wording', (t) => {
  const s = sandbox();
  t.after(() => s.done());
  const clean = writeTool(join(s.root, 'clean'), {
    name: 'clean',
    finch: { name: 'Clean', description: 'd', miniToolType: 'local', permissions: { filesystem: 'read', sessions: true, sessionWaits: 'all', destructiveInteractions: false, secrets: ['svc.*'] } },
  });
  const ok = s.finch(['doctor', clean]);
  assert.equal(ok.status, 0, ok.stdout + ok.stderr);
  assert.match(ok.stdout, /^✓ No issues found\.$/m);

  const odd = writeTool(join(s.root, 'odd'), { name: 'odd', finch: { permissions: { clipbord: true, sessionInteractions: 'some' } } });
  const warned = s.finch(['doctor', odd]);
  assert.equal(warned.status, 0, warned.stdout + warned.stderr);
  assert.match(warned.stdout, /^⚠ 2 warning\(s\):$/m);
  assert.match(warned.stdout, /finch\.permissions\.clipbord 不是已知权限位/);
  assert.match(warned.stdout, /finch\.permissions\.sessionInteractions 应为 boolean 或 'all'/);

  const wild = writeTool(join(s.root, 'wild'), { name: 'wild', finch: { permissions: { secrets: ['a*b'] } } });
  const failed = s.finch(['doctor', wild]);
  assert.equal(failed.status, 1);
  assert.match(failed.stdout, /^✖ 1 fatal issue\(s\):$/m);
  assert.match(failed.stdout, /仅允许精确 key 或末尾 \.\* 前缀/);
  assert.match(failed.stderr, /^Error: /);
});

test('a bare doctor inside a broken package fails, as a CI step expects', (t) => {
  const s = sandbox();
  t.after(() => s.done());
  const pkg = writeTool(join(s.root, 'unbuilt'), { name: 'unbuilt', entry: false });
  const r = s.finch(['doctor'], { cwd: pkg });
  assert.equal(r.status, 1);
  assert.match(r.stdout, /entry file not found: dist\/index\.js/);
  assert.equal(r.stderr, `Error: ${pkg} has 1 fatal issue(s)\n`);
});

test('the pipe listing carries only valid mini tools', (t) => {
  const s = sandbox();
  t.after(() => s.done());
  const good = writeTool(join(s.root, 'good'), { name: 'good', finch: { name: 'Good' } });
  assert.equal(s.finch(['add', good]).status, 0);
  mkdirSync(join(s.personal, 'node_modules', 'x'), { recursive: true });
  mkdirSync(join(s.personal, 'no-manifest'), { recursive: true });
  writeTool(join(s.personal, 'unbuilt'), { name: 'unbuilt', entry: false });
  const r = s.finch(['list']);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, `good\t1.0.0\tdisabled\tGood\t${join(s.personal, 'good')}\n`);
  const json = JSON.parse(s.finch(['list', '--json']).stdout);
  assert.deepEqual(json.map((e) => [e.id, e.problems.length > 0]), [
    ['good', false], ['no-manifest', true], ['node_modules', true], ['unbuilt', true],
  ]);
});
