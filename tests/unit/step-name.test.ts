// Each step of a committed run named by what ran where, from its snapshot and the run's topology.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadSnapshots } from '../../src/evidence/load.ts';
import { stepName } from '../../src/article/render/step-name.ts';
import { stepNamePieces } from '../../src/i18n/step-names.ts';
import type { Lang } from '../../src/site.config.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const runOf = (folder: string) => loadSnapshots(join(root, 'content/articles', folder));

/** A name as a page writes it, the step's bound facts shown as {node} and {command}. */
function named(folder: string, lang: Lang): string[] {
  const snapshots = runOf(folder);
  return snapshots.run.steps.map((id) =>
    stepNamePieces(stepName(snapshots.steps.get(id)!, snapshots.run), lang)
      .map((p) => ('fact' in p ? `{${p.fact}}` : 'code' in p ? `\`${p.code}\`` : p.text))
      .join(''),
  );
}

test('074’s kind run: every step named by what ran where, a request by the roles of its address and port', () => {
  assert.deepEqual(named('074-external-traffic-policy/snapshots', 'zh'), [
    '{node} 上的 `curl` → worker 上 s-cluster 的 NodePort',
    '{node} 上的 {command}',
    '{node} 上的 `curl` → worker2 上 s-cluster 的 NodePort',
    '{node} 上的 {command}',
    '{node} 上的 `curl` → worker 上 s-local 的 NodePort',
    '{node} 上的 `curl` → worker2 上 s-local 的 NodePort',
    '{node} 上的 {command}',
    '{node} 上的 {command}',
    '{node} 上的 `curl` → worker 上 s-lb 的健康检查端口',
    '{node} 上的 `curl` → worker2 上 s-lb 的健康检查端口',
    '{node} 上的 `curl` → control-plane 上 s-lb 的健康检查端口',
    '采集程序在本机执行的 `kubectl delete pod backend` …',
    '{node} 上的 `curl` → worker 上 s-lb 的健康检查端口',
  ]);
  assert.deepEqual(named('074-external-traffic-policy/snapshots', 'en').slice(0, 2), [
    '`curl` on {node} → s-cluster’s NodePort on worker',
    '{command} on {node}',
  ]);
});

test('075’s requests to both workers name both; the lab’s run names the same roles with its own addresses and ports', () => {
  for (const folder of ['075-local-uneven-weights/snapshots', '075-local-uneven-weights/snapshots.lab']) {
    assert.deepEqual(named(folder, 'en'), [
      '`curl` on {node} → s-local’s health-check port on worker',
      '`curl` on {node} → s-local’s health-check port on worker2',
      // iptables-save on each worker: named by its command.
      '{command} on {node}',
      '{command} on {node}',
      '`curl` on {node} → s-cluster’s NodePort on worker and worker2',
      '`curl` on {node} → s-local’s NodePort on worker and worker2',
    ]);
  }
});

test('a request to an address the run does not know is named by its command, short or long', () => {
  const snapshots = runOf('074-external-traffic-policy/snapshots');
  const step = snapshots.steps.get('cluster-via-worker')!;
  assert.deepEqual(stepName({ ...step, command: ['curl', 'http://192.0.2.1:80/'] }, snapshots.run), { kind: 'command', node: 'control-plane' });
  assert.deepEqual(stepName({ ...step, command: ['curl', '--silent', '--show-error', '--max-time', '3', 'http://192.0.2.1:80/long/path/'] }, snapshots.run), {
    kind: 'head',
    node: 'control-plane',
    head: 'curl',
  });
  // The pod's own address: the pod, whatever the port.
  const pod = snapshots.run.pods[0]!;
  assert.deepEqual(stepName({ ...step, command: ['curl', `http://${pod.ip}:80/`] }, snapshots.run), {
    kind: 'request',
    program: 'curl',
    node: 'control-plane',
    target: { kind: 'pod', pod: pod.name },
  });
});

test('076’s kind run: a request from a pod names the pod and its node; a ClusterIP by its Service', () => {
  const zh = named('076-internal-traffic-policy/snapshots', 'zh');
  const en = named('076-internal-traffic-policy/snapshots', 'en');
  assert.equal(zh[3], '{node} 上 Pod client-worker2 里的 `curl` → s-local 的 ClusterIP');
  assert.equal(en[3], '`curl` in pod client-worker2 on {node} → s-local’s ClusterIP');
  assert.equal(zh[4], '{node} 上的 `curl` → s-local 的 ClusterIP', "a node's own request names no pod");
  assert.equal(en[10], '`curl` on {node} → s-ext-local’s NodePort on worker2');
  assert.equal(en[15], '{command} run by the capture on its host', 'the recreate: kubectl apply, short enough to be its own name');
});
