// Which kind clusters the capture may reuse or delete: only those it can prove it created.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  decideClusterAction,
  isOwned,
  markerPath,
  parseMarker,
  readMarker,
  removeMarker,
  writeMarker,
  type OwnerMarker,
} from '../../src/capture/kind/ownership.ts';

const live = [
  { id: 'a'.repeat(64), name: 'kx-main-control-plane' },
  { id: 'b'.repeat(64), name: 'kx-main-worker' },
  { id: 'c'.repeat(64), name: 'kx-main-worker2' },
];
const marker: OwnerMarker = { createdBy: 'shice', cluster: 'kx-main', runId: 'r1', createdAt: '2026-12-02T11:08:00.000Z', containers: live };

test('owned only when the marker lists exactly the live containers of that cluster', () => {
  assert.equal(isOwned(marker, 'kx-main', [...live].reverse()), true, 'order does not matter');
  assert.equal(isOwned(null, 'kx-main', live), false, 'no marker');
  assert.equal(isOwned(marker, 'other', live), false, "another cluster's marker");
  assert.equal(isOwned({ ...marker, containers: [] }, 'kx-main', live), false, 'a create that never finished proves nothing');
  assert.equal(isOwned(marker, 'kx-main', live.slice(1)), false, 'a container is missing');
  assert.equal(isOwned(marker, 'kx-main', [...live.slice(1), { id: 'd'.repeat(64), name: 'kx-main-control-plane' }]), false, 'same names, other ids');
  assert.equal(isOwned(marker, 'kx-main', []), false, 'nothing live');
});

test('the decision: create when absent, refuse when foreign, reuse or recreate when ours', () => {
  const slug = '074-external-traffic-policy';
  const base = { cluster: 'kx-main', markerFile: '/repo/.shice/kind/kx-main.owner.json', slug, keptFor: slug };
  assert.deepEqual(decideClusterAction({ ...base, exists: false, owned: false, reuse: false }), { action: 'create' });
  assert.deepEqual(decideClusterAction({ ...base, exists: false, owned: false, reuse: true }), { action: 'create' });
  assert.deepEqual(decideClusterAction({ ...base, exists: true, owned: true, reuse: true }), { action: 'reuse' });
  assert.deepEqual(decideClusterAction({ ...base, exists: true, owned: true, reuse: false }), { action: 'recreate' });
  for (const reuse of [false, true]) {
    const refused = decideClusterAction({ ...base, exists: true, owned: false, reuse });
    assert.equal(refused.action, 'refuse');
    assert.match(
      (refused as { reason: string }).reason,
      /"kx-main" already exists and was not created by this capture .*\/repo\/\.shice\/kind\/kx-main\.owner\.json.*kind delete cluster --name kx-main/,
    );
  }
  // Kept by another article's run (or by a marker older than the field): recreated, and the line says why.
  assert.deepEqual(decideClusterAction({ ...base, exists: true, owned: true, reuse: true, keptFor: '076-internal-traffic-policy' }), {
    action: 'recreate',
    why: 'it was kept by a run of 076-internal-traffic-policy, not of 074-external-traffic-policy',
  });
  assert.deepEqual(decideClusterAction({ ...base, exists: true, owned: true, reuse: true, keptFor: undefined }), {
    action: 'recreate',
    why: 'it was kept by a run of an article its marker does not name, not of 074-external-traffic-policy',
  });
});

test('markers round-trip through the state folder; a broken one names its file and field', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'shice-kind-marker-'));
  try {
    assert.equal(await readMarker(dir, 'kx-main'), null);
    await writeMarker(dir, marker);
    assert.deepEqual(await readMarker(dir, 'kx-main'), marker);
    assert.equal(JSON.parse(await readFile(markerPath(dir, 'kx-main'), 'utf8')).runId, 'r1');
    await writeFile(markerPath(dir, 'kx-main'), JSON.stringify({ ...marker, createdBy: 'someone' }));
    await assert.rejects(readMarker(dir, 'kx-main'), new RegExp(`${markerPath(dir, 'kx-main').replace(/[.]/g, '\\.')}: field createdBy: expected "shice"`));
    await removeMarker(dir, 'kx-main');
    await removeMarker(dir, 'kx-main');
    assert.equal(await readMarker(dir, 'kx-main'), null);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  assert.throws(() => parseMarker('{', 'm.json'), /m\.json: not JSON/);
  assert.throws(
    () => parseMarker(JSON.stringify({ ...marker, containers: [{ id: 1 }] }), 'm.json'),
    /m\.json: field containers: expected a list of \{id, name\}/,
  );
  assert.throws(() => parseMarker(JSON.stringify({ ...marker, runId: '' }), 'm.json'), /m\.json: field runId: expected a non-empty string/);
});

test('a kept cluster’s marker carries the host as it was before its create, for the run that deletes it; a broken one is named', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'shice-kind-marker-'));
  // As a kind create on shice's engine journals them (the values a CI run's teardown wrote back).
  const hostBefore = {
    kindNetworkExisted: false,
    libModulesExisted: false,
    hostSysctls: { 'kernel.panic': '1', 'vm.overcommit_memory': '0' },
    hostJournal: [
      { name: 'kernel.panic', before: '1', set: '10' },
      { name: 'vm.overcommit_memory', before: '0', set: '1' },
    ],
  };
  try {
    await writeMarker(dir, { ...marker, hostBefore });
    assert.deepEqual((await readMarker(dir, 'kx-main'))?.hostBefore, hostBefore);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  for (const broken of [{ ...hostBefore, hostSysctls: 'kernel.panic=1' }, { ...hostBefore, hostJournal: {} }, 'before']) {
    assert.throws(
      () => parseMarker(JSON.stringify({ ...marker, hostBefore: broken }), 'm.json'),
      /^Error: m\.json: field hostBefore: expected kindNetworkExisted, libModulesExisted, hostSysctls and hostJournal, each null or set$/,
    );
  }
});
