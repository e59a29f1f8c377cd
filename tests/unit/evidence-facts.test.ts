import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join, relative } from 'node:path';
import { loadSnapshots, type Snapshots } from '../../src/evidence/load.ts';
import { DECLARED_STEP } from '../../src/evidence/facts.ts';
import { deriveFacts, deriveFactsWithSkips, type FactDef } from '../../src/evidence/facts.ts';
import { optional, runFact, settleFacts, stepFact } from '../../src/evidence/fact-kit.ts';
import { nodePort } from '../../src/evidence/extract/run.ts';
import { provenanceFacts, withRunFacts } from '../../src/evidence/provenance.ts';
import { EvidenceError } from '../../src/evidence/errors.ts';
import type { StepSnapshot } from '../../src/evidence/schema.ts';
import { facts as commonFacts074, variantFacts as variantFacts074 } from '../../content/articles/074-external-traffic-policy/facts.ts';
import { experiment as article074 } from '../../content/articles/074-external-traffic-policy/experiment.ts';
import { experimentForVariant } from '../../src/experiment/variants.ts';
import { SNAPSHOT_SAMPLE_DIR } from '../fixtures/samples/read-sample.ts';

/** The facts of article 074's default run (iptables): the common ones and that variant's own. */
const articleFacts = [...commonFacts074, ...variantFacts074.iptables!];

/** Article 074's default run: kube-proxy in iptables mode. */
const experiment = experimentForVariant(article074, 'iptables');

const sample = loadSnapshots(SNAPSHOT_SAMPLE_DIR);
const stepIds = experiment.steps.map((s) => s.id);

/** The sample with one step changed (or removed). */
function withStep(id: string, change: ((s: StepSnapshot) => StepSnapshot) | 'remove'): Snapshots {
  const steps = new Map(sample.steps);
  const files = new Map(sample.files.steps);
  if (change === 'remove') {
    steps.delete(id);
    files.delete(id);
  } else {
    steps.set(id, change(steps.get(id)!));
  }
  return { ...sample, steps, files: { ...sample.files, steps: files } };
}

function problemsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof EvidenceError, `expected an EvidenceError, got ${String(error)}`);
    return error.problems;
  }
  assert.fail('expected an EvidenceError');
}

test("article 074's facts all derive from the sample run; only driver-specific versions are skipped", () => {
  const { facts, skipped } = deriveFactsWithSkips(articleFacts, sample);
  const required = articleFacts.filter((d) => !d.optional).map((d) => d.id);
  for (const id of required) assert.ok(facts.has(id), `fact ${id} was not derived`);
  assert.deepEqual(skipped.map((s) => s.id).sort(), ['version.docker', 'version.kind', 'version.nodeImage']);
  for (const s of skipped) assert.match(s.reason, /only the kind driver records/);
  for (const fact of facts.values()) {
    assert.ok(fact.step === 'run' || fact.step === DECLARED_STEP || stepIds.includes(fact.step), `${fact.id} names step ${fact.step}`);
    assert.notEqual(fact.value, '');
  }
  for (const id of stepIds)
    assert.ok(
      [...facts.values()].some((f) => f.step === id),
      `no fact binds step ${id}`,
    );
});

test('the facts say what the snapshots say (read here independently of the extractors)', () => {
  const facts = deriveFacts(withRunFacts(articleFacts, sample.run), sample);
  const value = (id: string) => facts.get(id)!.value;
  const stdout = (id: string) => sample.steps.get(id)!.stdout;
  for (const id of ['cluster-via-worker', 'cluster-via-worker2', 'local-via-worker']) {
    assert.equal(value(`${id}.client`), /client=(\S+)/.exec(stdout(id))![1]);
    assert.equal(value(`${id}.rc`), '0');
    assert.equal(value(`${id}.timeout`), '3');
  }
  // Cluster: SNAT to the pod gateway (via worker) and to worker2's own address (via worker2).
  assert.equal(value('cluster-via-worker.client'), value('node.worker.podGateway'));
  assert.equal(value('cluster-via-worker2.client'), value('node.worker2.ip'));
  // Local: the control-plane's own address survives.
  assert.equal(value('local-via-worker.client'), value('node.control-plane.ip'));
  assert.equal(value('local-via-worker2.rc'), '28');
  assert.equal(facts.get('local-via-worker2.seconds')!.raw, String(sample.steps.get('local-via-worker2')!.durationMs));
  assert.equal(value('local-via-worker2.seconds'), (sample.steps.get('local-via-worker2')!.durationMs / 1000).toFixed(1));
  assert.match(value('local-via-worker2.error'), /^Connection timed out after \d+ milliseconds$/);

  assert.ok(stdout('filter-worker2').split('\n').includes(value('filter-worker2.dropRule')));
  assert.match(value('filter-worker2.dropRule'), /^-A KUBE-EXTERNAL-SERVICES .* -j DROP$/);
  assert.equal(value('filter-worker2.dropPort'), value('service.s-local.nodePort'));

  assert.equal(value('conntrack-worker2.count'), String(stdout('conntrack-worker2').trim().split('\n').length));
  assert.equal(value('conntrack-worker2.first.line'), stdout('conntrack-worker2').trim().split('\n')[0]);
  assert.equal(value('conntrack-worker2.first.original.src'), value('node.control-plane.ip'));
  assert.equal(value('conntrack-worker2.first.original.dst'), value('node.worker2.ip'));
  assert.equal(value('conntrack-worker2.first.original.dport'), value('service.s-cluster.nodePort'));
  assert.equal(value('conntrack-worker2.first.reply.src'), value('pod.backend.ip'));
  assert.equal(value('conntrack-worker2.first.reply.dst'), value('node.worker2.ip'));
  assert.equal(value('conntrack-worker2.first.reply.sport'), '80');

  assert.deepEqual(
    ['health-worker', 'health-worker2', 'health-control-plane', 'health-worker-after-delete'].map(
      (id) => `${value(`${id}.status`)}/${value(`${id}.localEndpoints`)}`,
    ),
    ['200/1', '503/0', '503/0', '503/0'],
  );
  for (const node of sample.run.nodes) assert.equal(value(`node.${node.name}.ip`), node.internalIP);
  assert.equal(value('service.s-lb.healthCheckNodePort'), String(sample.run.services.find((s) => s.name === 's-lb')!.healthCheckNodePort));
  assert.equal(value('service.s-local.healthCheckNodePort'), 'none');
  assert.equal(value('run.id'), sample.run.runId);
  assert.equal(value('run.driver'), 'lab');
  assert.equal(value('run.date'), sample.run.startedAt.slice(0, 10));
  assert.equal(value('version.kernel'), sample.run.host.kernel);
});

test("the sample's addresses and ports are not the published article's, so a page that typed them would be caught", () => {
  const published = ['172.18.0.2', '172.18.0.3', '172.18.0.4', '10.244.1.1', '10.244.1.177', '10.244.1.178', '31575', '32459', '31273'];
  const facts = deriveFacts(articleFacts, sample);
  const bound = [...facts.values()].filter((f) => /\.(ip|client|nodePort|healthCheckNodePort|podGateway|dropPort|src|dst|dport)$/.test(f.id));
  // Every kind of address and port the article binds is in the check.
  const kinds = new Set(bound.map((f) => f.id.split('.').at(-1)));
  assert.deepEqual([...kinds].sort(), ['client', 'dport', 'dropPort', 'dst', 'healthCheckNodePort', 'ip', 'nodePort', 'podGateway', 'src']);
  for (const fact of bound) assert.ok(!published.includes(fact.value), `${fact.id} = ${fact.value} is a value of the published article`);
});

test('a fact whose step snapshot is missing names the step file', () => {
  const snapshots = withStep('health-worker', 'remove');
  const problems = problemsOf(() => deriveFacts(articleFacts, snapshots));
  assert.deepEqual(
    problems.map((p) => p.split(': fact ')[1]!.split('"')[1]),
    ['health-worker.status', 'health-worker.reason', 'health-worker.localEndpoints'],
  );
  assert.equal(
    problems[0],
    `${relative(process.cwd(), join(SNAPSHOT_SAMPLE_DIR, 'health-worker.yaml'))}: fact "health-worker.status": no such step snapshot (run.yaml lists: ${sample.run.steps.join(', ')})`,
  );
});

test('a fact the extractor cannot find names the step file, the fact and what was looked for', () => {
  const file = sample.files.steps.get('local-via-worker')!;
  assert.deepEqual(
    problemsOf(() =>
      deriveFacts(
        articleFacts,
        withStep('local-via-worker', (s) => ({ ...s, stdout: '' })),
      ),
    ),
    [`${file}: fact "local-via-worker.client": looked for a line "client=<address>" in stdout, got ""`],
  );
  const filter = sample.files.steps.get('filter-worker2')!;
  const noDrop = withStep('filter-worker2', (s) => ({
    ...s,
    stdout: s.stdout
      .split('\n')
      .filter((l) => !l.includes('s-local has no local endpoints'))
      .join('\n'),
  }));
  const problems = problemsOf(() => deriveFacts(articleFacts, noDrop));
  assert.equal(problems.length, 2);
  assert.match(
    problems[0]!,
    new RegExp(
      `^${filter.replace(/\./g, '\\.')}: fact "filter-worker2\\.dropRule": looked for a rule with table filter, chain KUBE-EXTERNAL-SERVICES, target DROP, --dport ${nodePort(sample.run, 's-local')} in iptables-save output, found none`,
    ),
  );
  const conntrack = sample.files.steps.get('conntrack-worker2')!;
  const lying = withStep('conntrack-worker2', (s) => ({ ...s, stderr: s.stderr.replace(/\d+ flow entries/, '5 flow entries') }));
  assert.ok(
    problemsOf(() => deriveFacts(articleFacts, lying)).includes(
      `${conntrack}: fact "conntrack-worker2.count": stderr says 5 flow entries were shown, but stdout has 1`,
    ),
  );
});

test('ids must be unique and well-formed; empty values are refused; other errors are not swallowed', () => {
  const ok = runFact('run.id', (run) => run.runId);
  assert.deepEqual(
    problemsOf(() => deriveFacts([ok, ok], sample)),
    ['fact id "run.id" is declared twice'],
  );
  assert.deepEqual(
    problemsOf(() => deriveFacts([runFact('run id', (run) => run.runId)], sample)),
    ['fact id "run id": expected dotted segments of letters, digits and dashes'],
  );
  assert.deepEqual(
    problemsOf(() => deriveFacts([stepFact('x.empty', 'health-worker', () => '')], sample)),
    [`${sample.files.steps.get('health-worker')}: fact "x.empty": the derived value is empty`],
  );
  const buggy: FactDef = {
    id: 'x.bug',
    step: 'run',
    derive: () => {
      throw new TypeError('a bug');
    },
  };
  assert.throws(() => deriveFacts([buggy], sample), TypeError);
});

test('optional facts are skipped with their reason when the run lacks them, derived when it has them', () => {
  const def = optional(
    runFact('version.docker', (run) => {
      const v = run.versions['docker'];
      if (!v) return '';
      return v;
    }),
    'only kind records it',
  );
  const lab = deriveFactsWithSkips([def], sample);
  assert.equal(lab.facts.size, 0);
  assert.deepEqual(lab.skipped, [{ id: 'version.docker', step: 'run', reason: 'only kind records it', cause: 'the derived value is empty' }]);
  const kindRun = { ...sample, run: { ...sample.run, driver: 'kind' as const, versions: { ...sample.run.versions, docker: '28.2.2' } } };
  assert.equal(deriveFacts(articleFacts, kindRun).get('version.docker')!.value, '28.2.2');
});

test("a delete-pod step's settle wait is a fact: seconds after the delete returned, and the polls it took", () => {
  const step = sample.steps.get('delete-backend')!;
  assert.ok(step.settle !== undefined, 'the recorded delete-backend step has its settle record');
  const facts = deriveFacts(settleFacts('delete-backend'), sample);
  assert.equal(facts.get('delete-backend.settleSeconds')!.raw, String(step.settle.afterDeleteMs));
  assert.equal(facts.get('delete-backend.settlePolls')!.value, String(step.settle.polls));
  // A delete recorded without its wait (a run before the record existed) is no settle measurement.
  const unsettled = withStep('delete-backend', ({ settle: _settle, ...rest }) => rest);
  assert.deepEqual(
    problemsOf(() => deriveFacts(settleFacts('delete-backend'), unsettled)).map((p) => p.replace(/^.*?: fact/, 'fact')),
    [
      'fact "delete-backend.settleSeconds": step delete-backend has no settle record (a delete-pod step with settleNode records one)',
      'fact "delete-backend.settlePolls": step delete-backend has no settle record (a delete-pod step with settleNode records one)',
    ],
  );
});

test("the stand-in's decisions are run facts; a value it chose names no source", () => {
  const decisions = sample.run.environment.standIn;
  assert.ok(decisions !== undefined && decisions.length > 0, 'the lab run records what its kubelet decided');
  const facts = deriveFacts(provenanceFacts(sample.run), sample);
  decisions.forEach((d, i) => {
    assert.equal(facts.get(`run.standIn.${i + 1}.field`)!.value, d.field);
    assert.equal(facts.get(`run.standIn.${i + 1}.source`)!.value, d.source);
    assert.equal(facts.get(`run.standIn.${i + 1}.nodes`)!.value, d.nodes.join(', '));
    assert.equal(facts.has(`run.standIn.${i + 1}.from`), d.from !== undefined, `decision ${d.field}`);
  });
  assert.ok(decisions.some((d) => d.source === 'stand-in') && decisions.some((d) => d.source === 'read'));
  // The stand-in's own choices are said to be its own: pod capacity is kubelet's default, set by the lab kubelet.
  assert.equal(decisions.find((d) => d.field === 'node.status.capacity.pods')?.source, 'stand-in');
});
