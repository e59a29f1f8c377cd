// The bench's temporary folders go however it ends: each phase removes what it
// made, and whatever is left goes when the process exits (a second interrupt's
// process.exit, an error past the phases); a site that could not be filled is
// removed at once, before the phase sees the failure.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { liveTempDirs, makeTempDir, removeTempDirsSync } from '../../bench/temp-dirs.ts';
import { generateSite } from '../../bench/site/temp-project.ts';

test('a temporary folder is remembered until removed, and removeTempDirsSync takes what is left', async () => {
  const a = await makeTempDir('test-a');
  const b = await makeTempDir('test-b');
  assert.match(a.dir, /shice-bench-test-a-\w+$/);
  assert.deepEqual(liveTempDirs(), [a.dir, b.dir]);
  await a.remove();
  await a.remove();
  assert.equal(existsSync(a.dir), false);
  assert.deepEqual(removeTempDirsSync(), [b.dir]);
  assert.equal(existsSync(b.dir), false);
  assert.deepEqual(liveTempDirs(), []);
});

test('a process that exits in the middle leaves none of its folders behind', () => {
  const module = fileURLToPath(new URL('../../bench/temp-dirs.ts', import.meta.url));
  const script = `import { makeTempDir, removeTempDirsSync } from ${JSON.stringify(module)};
process.on('exit', () => removeTempDirsSync());
const { dir } = await makeTempDir('test-exit');
console.log(dir);
process.exit(130);`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.equal(child.status, 130, child.stderr);
  assert.match(child.stdout, /shice-bench-test-exit-/);
  assert.equal(existsSync(child.stdout.trim()), false);
});

test('a generated site that cannot be filled is removed before the error reaches the phase', async () => {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  let dir = '';
  await assert.rejects(
    generateSite(root, 'evidence', 'test-fill', async (d) => {
      dir = d;
      throw new Error('content/articles/x-b0001/evidence.en.mdx: no series');
    }),
    /evidence\.en\.mdx: no series/,
  );
  assert.ok(dir);
  assert.equal(existsSync(dir), false);
  assert.deepEqual(liveTempDirs(), []);
});
