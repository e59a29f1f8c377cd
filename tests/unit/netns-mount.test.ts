// The mount `ip netns add` makes at /run/netns, read from a real mount table
// (this machine's, after `ip netns add`): the lab undoes it only when it made it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { isMountPoint } from '../../src/capture/lab/netns-mount.ts';
import { judgeSuite } from '../support/suites.ts';

const mountinfo = readFileSync(new URL('../fixtures/samples/host/mountinfo-netns.txt', import.meta.url), 'utf8');

test('/run/netns bind-mounted on itself is a mount point; a namespace below it and a folder above are not the folder', () => {
  assert.equal(isMountPoint('/run/netns', mountinfo), true);
  assert.equal(isMountPoint('/run/netns/sample', mountinfo), true, 'each namespace is a mount of its own');
  assert.equal(isMountPoint('/run', mountinfo), false);
  assert.equal(isMountPoint('/var/run/netns', mountinfo), false, 'the table names the resolved path');
  const without = mountinfo
    .split('\n')
    .filter((line) => !line.includes('/run/netns'))
    .join('\n');
  assert.equal(isMountPoint('/run/netns', without), false);
});

test('a suite that leaves a mount on the host fails, naming it', () => {
  const verdict = judgeSuite({ ended: { code: 0 }, report: undefined, leftovers: [], hostLeftovers: ['a mount at /var/run/netns'] });
  assert.deepEqual(verdict, { ok: false, detail: 'left on the host: a mount at /var/run/netns' });
});
