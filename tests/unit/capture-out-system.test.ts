// `--out` never makes the capture create folders in the system's folders or
// directly in the root, /home or the home folder: one line naming the path and
// why, and nothing created. The pure rule, then the CLI on real paths.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { systemFolderProblem } from '../../src/capture/snapshots/target.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const SLUG = '074-external-traffic-policy';
const context = { home: '/home/author', allowed: ['/tmp', '/var/tmp', '/srv/shice'] };

test('the folders a capture may not create its own in, and those it may', () => {
  for (const parent of ['/etc', '/etc/ssl', '/usr/local/share', '/var', '/var/lib/apt', '/boot', '/run/user/0', '/lib64', '/sbin']) {
    assert.match(systemFolderProblem(parent, context) ?? '', / is inside \/[a-z0-9]+, a system folder; choose a folder of your own/, parent);
  }
  assert.equal(systemFolderProblem('/', context), 'it would be created directly in the file-system root; choose a folder of your own below it');
  assert.equal(systemFolderProblem('/home/author', context), 'it would be created directly in your home folder itself; choose a folder of your own below it');
  assert.equal(systemFolderProblem('/home', context), 'it would be created directly in /home itself; choose a folder of your own below it');
  for (const parent of ['/tmp', '/tmp/runs', '/var/tmp', '/var/tmp/x/y', '/home/author/runs', '/srv/shice/content/articles/074', '/work/runs', '/root/runs']) {
    assert.equal(systemFolderProblem(parent, context), null, parent);
  }
  assert.equal(systemFolderProblem('/var/tmpfoo', context)?.includes('inside /var'), true, 'a name that only starts like /var/tmp is not in it');
});

function captureOut(out: string) {
  return spawnSync(process.execPath, [join(root, 'scripts/capture.ts'), SLUG, '--driver', 'lab', '--variant', 'iptables', '--out', out], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, SHICE_RUN_REGISTRY: join(tmpdir(), 'shice-out-system-never-written') },
  });
}

test('--out /etc, /, /var/lib, the home folder and a link to /etc: exit 2, one line naming the path and why, nothing created', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'shice-out-system-'));
  try {
    symlinkSync('/etc', join(tmp, 'looks-harmless'));
    const cases: Array<[string, RegExp]> = [
      ['/etc', /^capture: --out \/etc: 074-external-traffic-policy\.lab: \/etc is inside \/etc, a system folder; .*; nothing was touched$/],
      ['/', /^capture: --out \/: 074-external-traffic-policy\.lab: it would be created directly in the file-system root; .*; nothing was touched$/],
      ['/var/lib', /^capture: --out \/var\/lib: .*\/var\/lib is inside \/var, a system folder/],
      [homedir(), /it would be created directly in your home folder itself/],
      [join(tmp, 'looks-harmless'), /: \/etc is inside \/etc, a system folder/],
    ];
    for (const [out, expected] of cases) {
      const result = captureOut(out);
      assert.equal(result.status, 2, `${out}: ${result.stderr}`);
      assert.equal(result.stderr.trimEnd().split('\n').length, 1, result.stderr);
      assert.match(result.stderr.trimEnd(), expected);
      // A lab capture's folder is the lab environment's (<slug>.lab); neither it nor the headline's is made.
      assert.equal(existsSync(join(out, SLUG)) || existsSync(join(out, `${SLUG}.lab`)), false);
    }
    assert.equal(existsSync(join(tmpdir(), 'shice-out-system-never-written')), false, 'refused before any record was written');
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
