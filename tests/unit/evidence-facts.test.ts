import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join, relative } from 'node:path';
import { loadSnapshots, type Snapshots } from '../../src/evidence/load.ts';
import { DECLARED_STEP } from '../../src/evidence/facts.ts';
import { deriveFacts, deriveFactsWithSkips, type FactDef } from '../../src/evidence/facts.ts';
import { fromRun, fromStep, optional, settleFacts } from '../../src/evidence/fact-kit.ts';
import { nodePort } from '../../src/evidence/extract/run.ts';
import { runFacts, unrecordedVersion, withRunFacts } from '../../src/evidence/run-facts.ts';
import { EvidenceError } from '../../src/evidence/errors.ts';
import type { RunSnapshot, StepSnapshot } from '../../src/evidence/schema.ts';
import { experimentForVariant } from '../../src/experiment/variants.ts';
import { SNAPSHOT_SAMPLE_DIR } from '../fixtures/samples/read-sample.ts';
import { article074, factDefsOf } from '../support/articles.ts';

/** The facts of article 074's default run (iptables): the common ones and that variant's own. */
const articleFacts = [...article074.factDefs, ...article074.variantFactDefs!.iptables!];

/** Article 074's default run: kube-proxy in iptables mode. */
const experiment = experimentForVariant(article074.experiment, 'iptables');

const runFact = (id: string, derive: (run: RunSnapshot) => string): FactDef => ({ id, ...fromRun(derive) });

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

test("article 074's facts and the run's all derive from the sample run; the versions only kind records are not the lab run's, and say why", () => {
  const defs = withRunFacts(articleFacts, sample.run);
  const { facts, skipped } = deriveFactsWithSkips(defs, sample);
  for (const { id } of defs) assert.ok(facts.has(id), `fact ${id} was not derived`);
  assert.deepEqual(skipped, []);
  // The run facts hold the versions the run recorded; the kind driver's own are absent from a lab run, and a page binding one says why.
  for (const id of ['version.docker', 'version.kind']) {
    assert.equal(facts.has(id), false, id);
    assert.match(unrecordedVersion(id)!, /^only the kind driver records versions\.(docker|kind)$/);
  }
  assert.equal(facts.get('version.kubectl')!.value, sample.run.versions['kubectl']);
  for (const fact of facts.values()) {
    assert.ok(fact.step === 'run' || fact.step === DECLARED_STEP || stepIds.includes(fact.step), `${fact.id} names step ${fact.step}`);
    assert.notEqual(fact.value, '');
  }
  // Every step is read by a fact of the article's own, not only by its rc and seconds (which every run has).
  for (const id of stepIds)
    assert.ok(
      articleFacts.some((d) => d.step === id && facts.has(d.id)),
      `no fact of the article binds step ${id}`,
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

  assert.ok(stdout('iptables-worker2').split('\n').includes(value('iptables-worker2.dropRule')));
  assert.match(value('iptables-worker2.dropRule'), /^-A KUBE-EXTERNAL-SERVICES .* -j DROP$/);
  assert.equal(value('iptables-worker2.dropPort'), value('service.s-local.nodePort'));

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
  const facts = deriveFacts(withRunFacts(articleFacts, sample.run), sample);
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
  const filter = sample.files.steps.get('iptables-worker2')!;
  const noDrop = withStep('iptables-worker2', (s) => ({
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
      `^${filter.replace(/\./g, '\\.')}: fact "iptables-worker2\\.dropRule": looked for a rule with table filter, chain KUBE-EXTERNAL-SERVICES, target DROP, --dport ${nodePort(sample.run, 's-local')} in iptables-save output, found none`,
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
    problemsOf(() => deriveFacts([{ id: 'x.empty', ...fromStep('health-worker', () => '') }], sample)),
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
  const def: FactDef = {
    id: 'version.docker',
    ...optional(
      fromRun((run) => {
        const v = run.versions['docker'];
        if (!v) return '';
        return v;
      }),
      'only kind records it',
    ),
  };
  const lab = deriveFactsWithSkips([def], sample);
  assert.equal(lab.facts.size, 0);
  assert.deepEqual(lab.skipped, [{ id: 'version.docker', step: 'run', reason: 'only kind records it', cause: 'the derived value is empty' }]);
  const kindRun = { ...sample, run: { ...sample.run, driver: 'kind' as const, versions: { ...sample.run.versions, docker: '28.2.2' } } };
  assert.equal(deriveFacts([def], kindRun).get('version.docker')!.value, '28.2.2');
  // The run's own facts have every version the run recorded.
  assert.equal(deriveFacts(withRunFacts(articleFacts, kindRun.run), kindRun).get('version.docker')!.value, '28.2.2');
});

test("a delete-pod step's settle wait is a fact: seconds after the delete returned, and the polls it took", () => {
  const step = sample.steps.get('delete-backend')!;
  assert.ok(step.settle !== undefined, 'the recorded delete-backend step has its settle record');
  const facts = deriveFacts(factDefsOf(settleFacts('delete-backend')), sample);
  assert.equal(facts.get('delete-backend.settleSeconds')!.raw, String(step.settle.afterDeleteMs));
  assert.equal(facts.get('delete-backend.settlePolls')!.value, String(step.settle.polls));
  // A delete recorded without its wait (a run before the record existed) is no settle measurement.
  const unsettled = withStep('delete-backend', ({ settle: _settle, ...rest }) => rest);
  assert.deepEqual(
    problemsOf(() => deriveFacts(factDefsOf(settleFacts('delete-backend')), unsettled)).map((p) => p.replace(/^.*?: fact/, 'fact')),
    [
      'fact "delete-backend.settleSeconds": step delete-backend has no settle record (a delete-pod or recreate-pod step records one)',
      'fact "delete-backend.settlePolls": step delete-backend has no settle record (a delete-pod or recreate-pod step records one)',
    ],
  );
});

test("the stand-in's decisions are run facts; a value it chose names no source", () => {
  const decisions = sample.run.environment.standIn;
  assert.ok(decisions !== undefined && decisions.length > 0, 'the lab run records what its kubelet decided');
  const facts = deriveFacts(runFacts(sample.run), sample);
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

test("the run's facts: every node, pod and Service run.yaml records, the cluster, and every version but the kernel's (the host's)", () => {
  const facts = deriveFacts(runFacts(sample.run), sample);
  const value = (id: string) => facts.get(id)?.value;
  for (const n of sample.run.nodes) {
    assert.equal(value(`node.${n.name}.ip`), n.internalIP);
    assert.equal(value(`node.${n.name}.name`), n.k8sName);
    assert.equal(value(`node.${n.name}.podCIDR`), n.podCIDR);
  }
  for (const p of sample.run.pods) {
    assert.equal(value(`pod.${p.name}.ip`), p.ip);
    assert.equal(value(`pod.${p.name}.node`), p.node);
    assert.equal(value(`pod.${p.name}.image`), p.image);
  }
  for (const s of sample.run.services) {
    assert.equal(value(`service.${s.name}.type`), s.type);
    assert.equal(value(`service.${s.name}.clusterIP`), s.clusterIP);
    assert.equal(value(`service.${s.name}.externalTrafficPolicy`), s.externalTrafficPolicy);
    assert.equal(value(`service.${s.name}.nodePort`), String(s.nodePort));
    assert.equal(value(`service.${s.name}.healthCheckNodePort`), s.healthCheckNodePort === null ? 'none' : String(s.healthCheckNodePort));
  }
  assert.equal(value('cluster.name'), sample.run.cluster.name);
  assert.equal(value('cluster.nodeCount'), String(sample.run.nodes.length));
  assert.equal(value('cluster.podSubnet'), sample.run.cluster.podSubnet);
  assert.equal(value('cluster.serviceSubnet'), sample.run.cluster.serviceSubnet);
  assert.equal(value('cluster.kubeProxyMode'), sample.run.cluster.kubeProxyMode);
  assert.equal(value('run.kubeProxyMode'), sample.run.versions['kube-proxy-mode']);
  assert.equal(facts.get('run.seconds')!.raw, String(sample.run.durationMs));
  assert.equal(value('version.os'), `${sample.run.host.os} ${sample.run.host.arch}`);
  for (const [tool, version] of Object.entries(sample.run.versions))
    assert.equal(value(`version.${tool}`), tool === 'kernel' ? sample.run.host.kernel : version, `version.${tool}`);
  // Every step's rc and seconds, whatever the article declares.
  for (const step of sample.run.steps) {
    assert.equal(value(`${step}.rc`), String(sample.steps.get(step)!.exitCode));
    assert.equal(facts.get(`${step}.seconds`)!.raw, String(sample.steps.get(step)!.durationMs));
  }
  // A run without kube-proxy's own answer has no run.kubeProxyMode.
  const { ['kube-proxy-mode']: _mode, ...versions } = sample.run.versions;
  assert.equal(
    runFacts({ ...sample.run, versions }).some((d) => d.id === 'run.kubeProxyMode'),
    false,
  );
});

test('an article fact whose id a run fact has is refused, naming the file and every such id; none is silently preferred', () => {
  const mine: FactDef[] = [
    { id: 'node.worker.ip', ...fromRun(() => '10.0.0.1') },
    { id: 'my.own', ...fromRun(() => 'x') },
    { id: 'local-via-worker2.rc', ...fromStep('local-via-worker2', () => '0') },
  ];
  assert.deepEqual(
    problemsOf(() => withRunFacts(mine, sample.run, 'content/articles/x/article.ts')),
    [
      'content/articles/x/article.ts: fact "node.worker.ip": every run has it from run.yaml (src/evidence/run-facts.ts); remove it from the article\'s facts',
      'content/articles/x/article.ts: fact "local-via-worker2.rc": every run has it from run.yaml (src/evidence/run-facts.ts); remove it from the article\'s facts',
    ],
  );
  // Without a clash, the article's facts come first and the run's follow, each once.
  const defs = withRunFacts([mine[1]!], sample.run);
  assert.equal(defs[0]!.id, 'my.own');
  assert.deepEqual(
    defs.slice(1).map((d) => d.id),
    runFacts(sample.run).map((d) => d.id),
  );
  assert.equal(new Set(defs.map((d) => d.id)).size, defs.length);
});
