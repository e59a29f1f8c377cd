// The mount `ip netns add` makes at /run/netns, read from a real mount table
// (this machine's, after `ip netns add`): the lab undoes it only when it made it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { claimedNote, isMountPoint, releasePlan } from '../../src/capture/lab/netns-mount.ts';
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

const user = (runId: string, pid = 100) => ({ runId, pid, startTime: '42' });
const everyoneAlive = () => true;

test('the first lab run to find no mount notes it as the labs’, later runs join it; a mount found unnoted is never claimed', () => {
  const first = claimedNote(null, user('a'), false, true);
  assert.deepEqual(first, { folder: true, users: [user('a')] });
  assert.deepEqual(claimedNote(first, user('b', 101), true, true), { folder: true, users: [user('a'), user('b', 101)] });
  assert.equal(claimedNote(null, user('a'), isMountPoint('/run/netns', mountinfo), true), null, 'a mount someone else made stays theirs');
  assert.deepEqual(claimedNote(null, user('a'), false, false), { folder: false, users: [user('a')] }, 'the folder too is the labs’ when it was not there');
});

test('releasing: the last live user unmounts once the folder is empty; another run’s claim, even before its first namespace, keeps the mount', () => {
  const note = { folder: false, users: [user('a'), user('b', 101)] };
  // b claimed (its namespaces not added yet): a's release must not unmount under it.
  assert.deepEqual(releasePlan(note, 'a', everyoneAlive, true, 0), { keep: { folder: false, users: [user('b', 101)] } });
  assert.deepEqual(releasePlan({ folder: false, users: [user('b', 101)] }, 'b', everyoneAlive, true, 0), { unmount: true, removeFolder: true });
  // A user killed with kill -9 no longer holds it; a namespace still under the mount does.
  assert.deepEqual(
    releasePlan(note, 'a', (u) => u.runId !== 'b', true, 0),
    { unmount: true, removeFolder: true },
  );
  assert.deepEqual(releasePlan({ folder: true, users: [user('a')] }, 'a', everyoneAlive, true, 2), { keep: { folder: true, users: [] } });
  assert.deepEqual(
    releasePlan({ folder: true, users: [] }, 'a', everyoneAlive, false, 0),
    { unmount: false, removeFolder: false },
    'unmounted by someone else: only the note goes',
  );
});
