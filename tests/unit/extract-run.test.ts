import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import type { RunSnapshot } from '../../src/evidence/schema.ts';
import { healthCheckNodePort, nodeIP, nodePort, podIP, runDate, version } from '../../src/evidence/extract/run.ts';
import { SNAPSHOT_SAMPLE_DIR } from '../fixtures/samples/read-sample.ts';

const run = load(readFileSync(join(SNAPSHOT_SAMPLE_DIR, 'run.yaml'), 'utf8')) as RunSnapshot;

test('node IPs, pod IP, NodePorts and the health-check port come from run.yaml', () => {
  assert.equal(nodeIP(run, 'control-plane'), '172.20.0.3');
  assert.equal(nodeIP(run, 'worker'), '172.20.0.2');
  assert.equal(nodeIP(run, 'worker2'), '172.20.0.4');
  assert.equal(podIP(run, 'backend'), '10.245.2.2');
  assert.equal(nodePort(run, 's-cluster'), '32435');
  assert.equal(nodePort(run, 's-local'), '30495');
  assert.equal(healthCheckNodePort(run, 's-lb'), '30863');
  assert.throws(() => healthCheckNodePort(run, 's-local'), /service "s-local" has no healthCheckNodePort in run\.yaml \(only LoadBalancer \+ Local gets one\)/);
  assert.throws(() => nodeIP(run, 'worker3'), {
    name: 'ExtractError',
    message: 'looked for node "worker3" in run.yaml, found only: control-plane, worker, worker2',
  });
  assert.throws(() => nodePort(run, 's-missing'), /looked for service "s-missing" in run\.yaml, found only: s-cluster, s-local, s-lb/);
});

test('versions, date and driver', () => {
  assert.equal(version(run, 'iptables'), 'iptables v1.8.9 (nf_tables)');
  assert.equal(version(run, 'kube-proxy'), 'Kubernetes v1.37.2', 'the lab asks each component');
  assert.throws(() => version(run, 'docker'), /looked for versions\.docker in run\.yaml \(driver lab\), found only: kernel, /);
  assert.match(runDate(run), /^\d{4}-\d{2}-\d{2}$/);
  assert.equal(runDate({ ...run, startedAt: '2026-12-31T23:30:00-08:00' }), '2026-12-31');
});
