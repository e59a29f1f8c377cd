// The user's path: the real scripts/capture.ts on a machine that lacks what its
// plan needs (no go on PATH, an empty machine cache) prints every problem and
// writes nothing; its --dry-run with Go prints what it would build and builds
// nothing. The planning itself: capture-preparation.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findProgram } from '../../src/capture/machine/kube-bin.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const SLUG = '075-local-uneven-weights';

/** The capture as a user runs it, with the machine cache, the run registry and --out in a folder of the test's own. */
function capture(dir: string, args: string[], path: string | undefined = process.env.PATH) {
  return spawnSync(process.execPath, [join(root, 'scripts/capture.ts'), SLUG, '--driver', 'lab', '--out', join(dir, 'out'), ...args], {
    cwd: root,
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, PATH: path, SHICE_CACHE: join(dir, 'cache'), SHICE_RUN_REGISTRY: join(dir, 'runs') },
  });
}

/** The article's own folder: no staging folder, lock or kept run appears beside its snapshots. */
const articleEntries = () => readdirSync(join(root, 'content/articles', SLUG)).sort();

test('a capture whose runs need binaries it cannot build here (no go on PATH, an empty cache) says so for every release, exit 2, and writes nothing', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shice-prepare-path-'));
  const before = articleEntries();
  try {
    const withoutGo = (process.env.PATH ?? '')
      .split(delimiter)
      .filter((folder) => findProgram('go', folder) === null)
      .join(delimiter);
    assert.equal(findProgram('go', withoutGo), null, 'the PATH the capture gets has no go');
    const run = capture(dir, [], withoutGo);
    assert.equal(run.status, 2, run.stderr);
    assert.equal(run.stdout, '');
    const lines = run.stderr.trimEnd().split('\n');
    assert.ok(
      lines.includes(
        "capture: the capture would build Kubernetes v1.37.2 (the lab), Kubernetes v1.36.3 (the lab), Kubernetes v1.35.4 (the lab), Kubernetes v1.34.4 (the lab) from Go modules, which needs Go 1.26 or newer, and no go on PATH: install it from https://go.dev/dl/ and put its bin folder on PATH (Debian's golang package is too old)",
      ),
      run.stderr,
    );
    assert.match(lines.at(-1)!, /^capture: nothing was built, captured or written \((the problem|the \d problems) above\)$/);
    assert.ok(
      lines.every((line) => line.startsWith('capture: ')),
      'one line per problem, nothing else',
    );
    // Nothing written: no cache, no run record, no --out folder, no staging folder beside the article's snapshots.
    assert.deepEqual(readdirSync(dir), []);
    assert.deepEqual(articleEntries(), before);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test(
  '--dry-run with Go on an empty cache: what would be built first, as comments before the plan; nothing built, nothing written',
  { skip: findProgram('go', process.env.PATH) === null && 'no go on PATH' },
  () => {
    const dir = mkdtempSync(join(tmpdir(), 'shice-prepare-path-'));
    try {
      const run = capture(dir, ['--k8s', 'v1.36,v1.34', '--dry-run']);
      assert.equal(run.status, 0, run.stderr);
      const lines = run.stdout.split('\n');
      assert.deepEqual(lines.slice(0, 2), [
        "# before the first run, the capture builds Kubernetes v1.36.3's binaries for the lab (the code of npm run lab:build -- --k8s v1.36)",
        "# before the first run, the capture builds Kubernetes v1.34.4's binaries for the lab (the code of npm run lab:build -- --k8s v1.34)",
      ]);
      assert.equal(lines.filter((l) => l.startsWith('# before the first run')).length, 2);
      assert.ok(lines.includes(`# ${SLUG} on Kubernetes v1.36.3 with --driver lab: setup`));
      assert.deepEqual(readdirSync(dir), [], 'no cache folder, no record, no --out');
      assert.equal(existsSync(join(dir, 'cache')), false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
