// A reused cluster's earlier run, removed before the manifests apply: which ports
// and addresses its connections went to, read from a real `kubectl get services`
// of a kept kind cluster of 074, and what a real node's conntrack --delete
// answers: one entry deleted (exit 0), or none matched (exit 1, no error).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { conntrackDeleted, conntrackDeleteTo, earlierRunTargets } from '../../src/capture/kubernetes/earlier-run.ts';
import { declaredObjects } from '../../src/capture/kubectl/manifest-objects.ts';
import { parseServiceList } from '../../src/capture/kubectl/topology.ts';
import { experiment074 } from '../support/articles.ts';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/kind/${name}`, import.meta.url), 'utf8');
const declared = declaredObjects(
  experiment074.manifests.map((m) => ({
    file: m,
    text: readFileSync(new URL(`../../content/articles/074-external-traffic-policy/${m}`, import.meta.url), 'utf8'),
  })),
);

test("the earlier run's targets: every declared Service's node ports, its health check's, and its cluster IP; the API's own Service is not the run's", () => {
  const services = parseServiceList(fixture('services-074-kind.json'));
  assert.ok(services.some((s) => s.name === 'kubernetes'));
  assert.deepEqual(earlierRunTargets(services, declared), {
    ports: [30120, 30589, 32045, 32496],
    addresses: ['10.96.116.85', '10.96.32.131', '10.96.86.37'],
  });
  // A cluster with none of them (a --reuse that created a fresh one): nothing to remove.
  assert.deepEqual(
    earlierRunTargets(
      services.filter((s) => s.name === 'kubernetes'),
      declared,
    ),
    { ports: [], addresses: [] },
  );
});

test('conntrack --delete: by TCP destination port or by destination address; "0 flow entries" (exit 1) is nothing to remove, anything else fails', () => {
  assert.deepEqual(conntrackDeleteTo({ port: '30120' }), ['conntrack', '--delete', '--proto', 'tcp', '--orig-port-dst', '30120']);
  assert.deepEqual(conntrackDeleteTo({ address: '10.96.86.37' }), ['conntrack', '--delete', '--orig-dst', '10.96.86.37']);
  const none = fixture('exec/conntrack-delete-none.stderr');
  assert.equal(conntrackDeleted(1, none), true);
  assert.equal(conntrackDeleted(0, fixture('exec/conntrack-delete-one.stderr')), true);
  assert.equal(conntrackDeleted(1, 'conntrack v1.4.7 (conntrack-tools): Operation not permitted\n'), false);
  assert.equal(conntrackDeleted(127, 'exec: "conntrack": executable file not found in $PATH\n'), false);
});
