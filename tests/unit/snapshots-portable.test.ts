// A committed run is read on every machine that builds the site: nothing in it may
// name a path of the machine that captured it (a checkout, a home or temporary
// folder). Commands entered into nodes name the nodes' own paths, which are the
// run's (/var/run/netns/…, kube-proxy's rules); kubectl runs with paths relative
// to the project, and a recreated pod's manifest goes on stdin.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
/** Where a capturing machine keeps checkouts and scratch files; a node's own paths are none of these. */
const MACHINE_PATH = /(?:^|[\s"'=:])\/(?:work|root|home|Users|tmp)\//m;

test('no committed snapshot names a path of the machine that captured it', () => {
  // What git holds, not what the folder holds now: other tests scaffold articles there and remove them.
  const committed = execFileSync('git', ['ls-files', '-z', 'content/articles'], { cwd: root, encoding: 'utf8' })
    .split('\0')
    .filter((file) => /^content\/articles\/[^/]+\/snapshots[^/]*\/[^/]+$/.test(file));
  assert.ok(committed.length > 0, 'git lists committed snapshots');
  const found: string[] = [];
  for (const file of committed) {
    const line = readFileSync(join(root, file), 'utf8')
      .split('\n')
      .find((l) => MACHINE_PATH.test(l));
    if (line !== undefined) found.push(`${file}: ${line.trim()}`);
  }
  assert.deepEqual(found, []);
});
