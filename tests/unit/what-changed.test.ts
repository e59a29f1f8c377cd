// The capture's "what changed" report (src/capture/session/what-changed.ts): what a run is
// compared with (the committed snapshots of the same article, environment and
// variant, also for --out), and a headline that reads "no change in behaviour"
// when only volatile values differ. On the committed runs of articles 074 and 075,
// and on copies of them in a temp folder changed as a re-run would change them.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load } from 'js-yaml';
import type { ArticleDefinitions } from '../../src/evidence/runs/from-disk.ts';
import { loadArticle } from '../../src/authoring/load.ts';
import {
  baselineOf,
  committedCounterpart,
  readBaseline,
  reportedChanges,
  runSide,
  tryEvidence,
  whatChangedLines,
  overallVerdict,
  type Baseline,
  type ReportSide,
} from '../../src/capture/session/what-changed.ts';
import { isGeneratedPodName } from '../../src/evidence/diff.ts';
import { deriveFacts, type FactDef } from '../../src/evidence/facts.ts';
import { fromRun } from '../../src/evidence/fact-kit.ts';
import type { RunSnapshot } from '../../src/evidence/schema.ts';
import { EvidenceError } from '../../src/evidence/errors.ts';
import { loadSnapshots } from '../../src/evidence/load.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const S074 = '074-external-traffic-policy';
const S075 = '075-local-uneven-weights';
const article = (slug: string) => join(root, 'content/articles', slug);
const defs074 = await loadArticle(root, S074);
const defs075 = await loadArticle(root, S075);
/** A fact read from run.yaml, as an article (or the run's own) declares one. */
const runFact = (id: string, derive: (run: RunSnapshot) => string): FactDef => ({ id, ...fromRun(derive) });
const show = (path: string) => relative(root, path) || path;

function tempDir(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'shice-what-changed-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Every file of a copied run, with each `from` replaced by its `to` (each must occur somewhere). */
function rewrite(dir: string, replacements: ReadonlyArray<readonly [string, string]>): void {
  const seen = new Set<string>();
  for (const name of readdirSync(dir)) {
    let text = readFileSync(join(dir, name), 'utf8');
    for (const [from, to] of replacements) {
      if (text.includes(from)) seen.add(from);
      text = text.replaceAll(from, to);
    }
    writeFileSync(join(dir, name), text);
  }
  for (const [from] of replacements) assert.ok(seen.has(from), `${dir} holds ${from}`);
}

/** Article 075's committed kind run, as the re-run below rewrites it: read from its files, never typed here. */
const RUN_075 = join(article(S075), 'snapshots');
const committed075 = load(readFileSync(join(RUN_075, 'run.yaml'), 'utf8')) as {
  runId: string;
  startedAt: string;
  durationMs: number;
  git: { commit?: string };
  pods: { name: string }[];
  services: { nodePort: number | null; healthCheckNodePort: number | null }[];
};
const stepDurations075 = readdirSync(RUN_075)
  .filter((name) => name.endsWith('.yaml') && name !== 'run.yaml')
  .map((name) => (load(readFileSync(join(RUN_075, name), 'utf8')) as { durationMs: number }).durationMs);
/** The pod-template hash a re-run's Deployment names its Pods with. */
const RERUN_HASH = 'web-5d8f7c9b4-';
const RERUN_RUN_ID = '20261205T090112Z-4c1d2e';

/**
 * Article 075's committed kind run as a re-run with the same behaviour would differ from it: another
 * run id and start, other durations, other random ports, and the Deployment's Pods named afresh (in the
 * same order, so each keeps its role).
 */
const RERUN_075: ReadonlyArray<readonly [string, string]> = [
  [committed075.runId, RERUN_RUN_ID],
  // The start's date and hour (and tens of minutes): every timestamp of the run moves with it.
  [committed075.startedAt.slice(0, 15), '2025-01-02T03:4'],
  [`durationMs: ${committed075.durationMs}`, `durationMs: ${committed075.durationMs + 3218}`],
  ...stepDurations075.map((ms) => [`durationMs: ${ms}`, `durationMs: ${(ms * 1.1 + 0.5).toFixed(3)}`] as const),
  ...committed075.pods.filter((p) => isGeneratedPodName(p.name)).map((p, i) => [p.name, `${RERUN_HASH}${['fxzq2', 'qz8hg', 'rk4x5'][i]}`] as const),
  ...committed075.services
    .flatMap((s) => [s.nodePort, s.healthCheckNodePort])
    .filter((port): port is number => port !== null)
    .map((port, i) => [String(port), String(30412 + 587 * i)] as const),
];

function rerunOf075(t: TestContext): string {
  const dir = join(tempDir(t), S075);
  cpSync(join(article(S075), 'snapshots'), dir, { recursive: true });
  rewrite(dir, RERUN_075);
  return dir;
}

function side(slug: string, dir: string, defs: ArticleDefinitions, variant: string | null = null): ReportSide {
  const read = tryEvidence(slug, dir, defs, variant);
  assert.ok(read.evidence, `${dir}: ${read.problem}`);
  return runSide(read.evidence);
}

const committed = (slug: string, folder: string, defs: ArticleDefinitions, variant: string | null = null): Baseline => {
  const dir = join(article(slug), folder);
  return baselineOf(tryEvidence(slug, dir, defs, variant), true, show(dir), 'committed');
};

// ---- 1. what a run is compared with ----

test('committedCounterpart: an --out folder maps to the committed folder with the same suffix, a committed one to itself', () => {
  const dir = article(S074);
  assert.equal(committedCounterpart(`/tmp/run/${S074}`, S074, dir), join(dir, 'snapshots'));
  assert.equal(committedCounterpart(`/tmp/run/${S074}.nftables`, S074, dir), join(dir, 'snapshots.nftables'));
  assert.equal(committedCounterpart(`/tmp/run/${S074}.lab`, S074, dir), join(dir, 'snapshots.lab'));
  assert.equal(committedCounterpart(`/tmp/run/${S074}.lab.nftables`, S074, dir), join(dir, 'snapshots.lab.nftables'));
  assert.equal(committedCounterpart(join(dir, 'snapshots.lab.nftables'), S074, dir), join(dir, 'snapshots.lab.nftables'));
  assert.equal(committedCounterpart(`/tmp/run/${S074}-old`, S074, dir), null, 'another name that merely starts with the slug');
  assert.equal(committedCounterpart('/tmp/run/snapshots', S074, dir), null);
});

test('--out DIR/<slug>.lab is compared with the committed snapshots.lab, and the report names that folder', (t) => {
  const out = tempDir(t);
  const target = join(out, `${S074}.lab`);
  cpSync(join(article(S074), 'snapshots.lab'), target, { recursive: true });
  const baseline = readBaseline({ slug: S074, target, articleDir: article(S074), defs: defs074, variant: 'iptables' }, show);
  assert.equal(baseline.kind, 'committed');
  assert.equal(baseline.folder, `content/articles/${S074}/snapshots.lab`);
  const committedRun = loadSnapshots(join(article(S074), 'snapshots.lab'), { slug: S074 }).run.runId;
  assert.equal(baseline.side?.runId, committedRun);
  const lines = whatChangedLines(baseline, side(S074, target, defs074, 'iptables'));
  assert.deepEqual(lines, [
    'what changed: no change in behaviour (no value differs)',
    `  compared run ${committedRun} with run ${committedRun}, the committed snapshots content/articles/${S074}/snapshots.lab`,
  ]);
  assert.ok(!lines.join('\n').includes('nothing to compare with'));
});

test('--out DIR/<slug>.lab.nftables against the committed snapshots.lab.nftables, not the default variant', (t) => {
  const target = join(tempDir(t), `${S074}.lab.nftables`);
  cpSync(join(article(S074), 'snapshots.lab.nftables'), target, { recursive: true });
  const baseline = readBaseline({ slug: S074, target, articleDir: article(S074), defs: defs074, variant: 'nftables' }, show);
  assert.equal(baseline.folder, `content/articles/${S074}/snapshots.lab.nftables`);
  assert.match(whatChangedLines(baseline, side(S074, target, defs074, 'nftables'))[0]!, /^what changed: no change in behaviour/);
});

test('without --out the run is compared with the committed snapshots it replaced', () => {
  const target = join(article(S075), 'snapshots');
  const baseline = readBaseline({ slug: S075, target, articleDir: article(S075), defs: defs075, variant: null }, show);
  assert.equal(baseline.kind, 'replaced');
  assert.match(whatChangedLines(baseline, baseline.side!)[1]!, new RegExp(`the committed snapshots it replaced content/articles/${S075}/snapshots$`));
});

test('a folder with no committed counterpart (074 is declared with ipvs, measured in none): nothing to compare with, naming the folder looked for', (t) => {
  const out = tempDir(t);
  const target = join(out, `${S074}.lab.ipvs`);
  const baseline = readBaseline({ slug: S074, target, articleDir: article(S074), defs: defs074, variant: 'ipvs' }, show);
  assert.equal(baseline.side, undefined);
  const next = side(S074, join(article(S074), 'snapshots.lab'), defs074, 'iptables');
  assert.deepEqual(whatChangedLines(baseline, next), [
    `what changed: nothing to compare with (no committed snapshots at content/articles/${S074}/snapshots.lab.ipvs)`,
  ]);
  const odd = readBaseline({ slug: S074, target: join(out, 'elsewhere'), articleDir: article(S074), defs: defs074, variant: null }, show);
  assert.match(whatChangedLines(odd, next)[0]!, /^what changed: nothing to compare with \(.*elsewhere is named neither 074-external-traffic-policy nor/);
});

test('a committed folder that is there but does not read is not "nothing to compare with": it says why', (t) => {
  const dir = join(tempDir(t), S074);
  mkdirSync(join(dir, 'snapshots.lab'), { recursive: true });
  const target = join(tempDir(t), `${S074}.lab`);
  const empty = readBaseline({ slug: S074, target, articleDir: dir, defs: defs074, variant: 'iptables' }, show);
  const next = side(S074, join(article(S074), 'snapshots.lab'), defs074, 'iptables');
  assert.match(whatChangedLines(empty, next)[0]!, /^what changed: not compared: the committed snapshots .*snapshots\.lab cannot be read: .*holds no run$/);

  cpSync(join(article(S074), 'snapshots.lab'), join(dir, 'snapshots.lab'), { recursive: true });
  const file = join(dir, 'snapshots.lab', 'health-worker2.yaml');
  writeFileSync(file, readFileSync(file, 'utf8').replace('HTTP/1.1 503 Service Unavailable', 'nothing came back'));
  const broken = readBaseline({ slug: S074, target, articleDir: dir, defs: defs074, variant: 'iptables' }, show);
  assert.match(whatChangedLines(broken, next)[0]!, /^what changed: not compared: .*health-worker2\.yaml: fact "health-worker2\.status"/);
});

// ---- 2. volatile values apart, and the headline ----

test('generated pod names: a ReplicaSet Pod name is one, a bare Pod or a StatefulSet Pod is not', () => {
  for (const name of ['web-5d8f7c9b4-x2x7q', 'web-68b8cc69d6-fkstc', 'web-d9fc87585-2k4x5', 'my-app-b-bbbbb']) assert.ok(isGeneratedPodName(name), name);
  for (const name of ['backend', 'web-0', 'web-68b8cc69d6', 'web-68b8cc69d6-fkstca', 'web-68b8cc69d6-fksta', 'Web-68b8cc69d6-fkstc'])
    assert.ok(!isGeneratedPodName(name), name);
  assert.deepEqual(
    side(S075, join(article(S075), 'snapshots'), defs075).generatedPods,
    committed075.pods.map((p) => p.name).filter((name) => name.startsWith('web-')),
  );
  assert.equal(committed075.pods.filter((p) => p.name.startsWith('web-')).length, 3, "the Deployment's three Pods");
  assert.deepEqual(side(S074, join(article(S074), 'snapshots'), defs074, 'iptables').generatedPods, [], "074's backend is a bare Pod");
});

test('a re-run of 075 that differs only in volatile values reads "no change in behaviour", each volatile value listed apart', (t) => {
  const dir = rerunOf075(t);
  const baseline = committed(S075, 'snapshots', defs075);
  const next = side(S075, dir, defs075);
  const lines = whatChangedLines(baseline, next);
  assert.match(lines[0]!, /^what changed: no change in behaviour \(only volatile values differ: \d+ facts\)$/);
  assert.equal(lines[1], `  compared run ${RERUN_RUN_ID} with run ${committed075.runId}, the committed snapshots content/articles/${S075}/snapshots`);
  assert.match(lines[2]!, /^ {2}volatile, expected to differ on every run, not a change in behaviour \(\d+ facts\):$/);
  assert.ok(
    lines.slice(3).every((l) => l.startsWith('    ~ ')),
    `only volatile lines follow:\n${lines.join('\n')}`,
  );
  const reasonOf = new Map(reportedChanges(baseline.side!, next).facts.map((f) => [f.id, f.volatile]));
  assert.equal(reasonOf.get('pod.lone.name'), "generated pod name (a Deployment's ReplicaSet names its Pods afresh on every run)");
  assert.equal(reasonOf.get('pod.shared-2.name'), reasonOf.get('pod.lone.name'));
  assert.equal(reasonOf.get('run.finishedAt'), 'time of the run');
  assert.equal(reasonOf.get('run.startedAt'), 'time of the run');
  assert.equal(reasonOf.get('run.id'), 'time of the run');
  assert.equal(reasonOf.get('run.seconds'), 'time of the run');
  assert.equal(reasonOf.get('spread-cluster.seconds'), 'duration within its noise');
  assert.equal(reasonOf.get('service.s-local.nodePort'), 'port allocated at random');
  assert.equal(reasonOf.get('spread-local.argv'), 'the same role in both runs (node.worker.ip, node.worker2.ip, service.s-local.nodePort)');
  // Nothing real was hidden: every change the diff found is here, and each is volatile.
  assert.ok(reasonOf.size > 10);
  assert.ok([...reasonOf.values()].every((r) => r !== undefined));
});

test('the same re-run with one real change: the headline says the behaviour changed and the change stands apart from the volatile ones', (t) => {
  const dir = rerunOf075(t);
  const file = join(dir, 'spread-local.yaml');
  const text = readFileSync(file, 'utf8');
  const answer = new RegExp(`^ {2}(${RERUN_HASH}\\w+) 200 (\\S+)$`, 'm').exec(text)!;
  writeFileSync(file, text.replace(answer[0], `  ${answer[1]} 503 ${answer[2]}`));
  const lines = whatChangedLines(committed(S075, 'snapshots', defs075), side(S075, dir, defs075));
  assert.match(lines[0]!, /^what changed: the behaviour changed \(1 claim, 1 fact\)$/);
  assert.ok(lines.includes('  claim nodes-get-equal-traffic: holds -> broken'), lines.join('\n'));
  assert.ok(lines.includes('  spread-local.answered: "600" -> "599"'), lines.join('\n'));
  const volatileAt = lines.findIndex((l) => l.startsWith('  volatile, '));
  assert.ok(volatileAt > lines.indexOf('  spread-local.answered: "600" -> "599"'));
  assert.ok(!lines.slice(volatileAt).some((l) => l.includes('spread-local.answered')));
  assert.ok(lines.slice(volatileAt).some((l) => l.includes('pod.lone.name')));
});

test('two environments of one article are told apart as real changes (kind vs lab, 075)', () => {
  const lines = whatChangedLines(committed(S075, 'snapshots', defs075), side(S075, join(article(S075), 'snapshots.lab'), defs075));
  assert.match(lines[0]!, /^what changed: the behaviour changed \(\d+ facts\)$/);
  assert.ok(lines.includes('  run.driver: "kind" -> "lab"'));
  assert.ok(lines.some((l) => l.startsWith('    ~ generated pod name') && l.includes('pod.lone.name')));
});

test('a fact declared volatile (FactDef volatile) is listed apart with its reason; undeclared, the same change is real', (t) => {
  const commit: FactDef = runFact('run.git.commit', (run) => run.git.commit ?? 'none');
  const declared: FactDef = { ...commit, volatile: { reason: 'the commit the capture ran from' } };
  const dir = rerunOf075(t);
  const commitSha = committed075.git.commit!;
  rewrite(dir, [[commitSha, '0123456789abcdef0123456789abcdef01234567']]);
  const withFact = (def: FactDef): ArticleDefinitions => ({ ...defs075, factDefs: [...defs075.factDefs, def] });

  const plain = whatChangedLines(committed(S075, 'snapshots', withFact(commit)), side(S075, dir, withFact(commit)));
  assert.match(plain[0]!, /^what changed: the behaviour changed \(1 fact\)$/);
  assert.ok(plain.includes(`  run.git.commit: "${commitSha}" -> "0123456789abcdef0123456789abcdef01234567"`));

  const lines = whatChangedLines(committed(S075, 'snapshots', withFact(declared)), side(S075, dir, withFact(declared)));
  assert.match(lines[0]!, /^what changed: no change in behaviour \(only volatile values differ/);
  assert.ok(lines.includes('    ~ declared volatile: the commit the capture ran from: run.git.commit'), lines.join('\n'));
});

test('FactDef volatile: carried onto the fact, and refused without a reason', () => {
  const snapshots = loadSnapshots(join(article(S075), 'snapshots'), { slug: S075 });
  const def: FactDef = { ...runFact('run.id', (run) => run.runId), volatile: { reason: 'a new id per run' } };
  assert.deepEqual(deriveFacts([def], snapshots).get('run.id')?.volatile, { reason: 'a new id per run' });
  assert.equal(deriveFacts([runFact('run.id', (run) => run.runId)], snapshots).get('run.id')?.volatile, undefined);
  assert.throws(
    () => deriveFacts([{ ...def, volatile: { reason: ' ' } }], snapshots),
    (error: unknown) => error instanceof EvidenceError && /fact id "run.id": volatile needs a reason/.test(error.message),
  );
});

test("a step's duration is timing while its client saw the same; a settle time within its noise is volatile", () => {
  const base = side(S074, join(article(S074), 'snapshots'), defs074, 'iptables');
  const facts = new Map(base.facts);
  const bump = (id: string, value: string) => facts.set(id, { ...facts.get(id)!, value });
  const old = Number(base.facts.get('delete-backend.settleSeconds')!.value);
  bump('delete-backend.settleSeconds', String(old + 0.2));
  // A busy machine: the timeout twice as long through docker exec, the answered request seven times.
  bump('local-via-worker2.seconds', String(Number(base.facts.get('local-via-worker2.seconds')!.value) * 2));
  bump('cluster-via-worker.seconds', '0.7');
  const changes = new Map(reportedChanges(base, { ...base, runId: 'next', facts }).facts.map((f) => [f.id, f]));
  assert.match(changes.get('delete-backend.settleSeconds')?.volatile ?? '', /^kube-proxy's time to notice, within its noise/);
  assert.equal(changes.get('local-via-worker2.seconds')?.timing, "timed out at the client's limit in both runs");
  assert.equal(changes.get('cluster-via-worker.seconds')?.timing, 'answered at once in both runs');
  const lines = whatChangedLines({ folder: 'snapshots', kind: 'replaced', side: base }, { ...base, runId: 'next', facts });
  assert.match(lines[0]!, /^what changed: no change in behaviour \(.*timing apart: 2 times/);
  assert.ok(lines.includes('  timing drifted, not a change in behaviour: every client saw what it saw before (2 times):'), lines.join('\n'));
  assert.ok(
    lines.some((l) => /^ {4}~ cluster-via-worker\.seconds: [\d.]+ -> 0\.7 s \(answered at once in both runs\)$/.test(l)),
    lines.join('\n'),
  );
});

test("kube-proxy's time to notice a delete beyond its noise is timing: only a claim that reads it judges it (074 on kind, every core busy: 0.08 -> 1.4 s)", () => {
  const base = side(S074, join(article(S074), 'snapshots'), defs074, 'iptables');
  const facts = new Map(base.facts);
  facts.set('delete-backend.settleSeconds', {
    ...facts.get('delete-backend.settleSeconds')!,
    value: String(Number(base.facts.get('delete-backend.settleSeconds')!.value) + 1.3),
  });
  const next = { ...base, runId: 'next', facts };
  const change = reportedChanges(base, next).facts.find((f) => f.id === 'delete-backend.settleSeconds')!;
  assert.equal(change.volatile, undefined);
  assert.equal(change.timing, 'a time, judged by the claims that read it');
  assert.match(whatChangedLines({ folder: 'snapshots', kind: 'replaced', side: base }, next)[0]!, /^what changed: no change in behaviour /);
});

test('a duration whose outcome changed is behaviour, both outcomes named: an answer turned into a timeout', () => {
  const base = side(S074, join(article(S074), 'snapshots'), defs074, 'iptables');
  const facts = new Map(base.facts);
  const bump = (id: string, value: string) => facts.set(id, { ...facts.get(id)!, value });
  // s-local switched to Cluster: the request through worker2 is answered, at once.
  bump('local-via-worker2.rc', '0');
  bump('local-via-worker2.seconds', '0.1');
  const next = { ...base, runId: 'next', facts };
  const change = reportedChanges(base, next).facts.find((f) => f.id === 'local-via-worker2.seconds')!;
  assert.equal(change.volatile, undefined);
  assert.deepEqual(change.outcomes, { old: "timed out at the client's limit", new: 'answered at once' });
  const lines = whatChangedLines({ folder: 'snapshots', kind: 'replaced', side: base }, next);
  assert.match(lines[0]!, /^what changed: the behaviour changed \(2 facts\)/);
  assert.ok(
    lines.some((l) => /^ {2}local-via-worker2\.seconds: "[\d.]+" \(timed out at the client's limit\) -> "0\.1" \(answered at once\)$/.test(l)),
    lines.join('\n'),
  );
});

test("a duration inside a stand-in's text (the lab kubelet's 'exited after N ms') is volatile within its noise, a changed grace period is not", (t) => {
  // The committed lab run's own words: the stand-in decision that says how long the container took to stop.
  const committedRun = loadSnapshots(join(article(S074), 'snapshots.lab'), { slug: S074 }).run;
  const decisions = committedRun.environment.standIn ?? [];
  const index = decisions.findIndex((d) => /grace \d+ s; exited after \d+ ms$/.test(d.value));
  assert.ok(index >= 0, 'the lab run records how the backend was stopped');
  const { value } = decisions[index]!;
  const id = `run.standIn.${index + 1}.value`;
  const [exited, ms] = /exited after (\d+) ms$/.exec(value)!;
  const grace = /grace \d+ s/.exec(value)![0];
  const copy = (name: string, edit: readonly [string, string]) => {
    const dir = join(tempDir(t), name);
    cpSync(join(article(S074), 'snapshots.lab'), dir, { recursive: true });
    rewrite(dir, [[committedRun.runId, '20261205T101010Z-abcdef'], edit]);
    return side(S074, dir, defs074, 'iptables');
  };
  const baseline = committed(S074, 'snapshots.lab', defs074, 'iptables');
  const faster = whatChangedLines(baseline, copy('faster', [exited, `exited after ${Number(ms) + 25} ms`]));
  assert.match(faster[0]!, /^what changed: no change in behaviour \(only volatile values differ: \d+ facts\)$/);
  assert.ok(faster.includes(`    ~ durations inside a text, within their noise: ${id}`), faster.join('\n'));
  const longer = whatChangedLines(baseline, copy('longer', [grace, 'grace 60 s']));
  assert.equal(longer[0], 'what changed: the behaviour changed (1 fact)');
  assert.ok(longer.includes(`  ${id}: ${JSON.stringify(value)} -> ${JSON.stringify(value.replace(grace, 'grace 60 s'))}`), longer.join('\n'));
});

test('many runs, one verdict: a change in behaviour outweighs one in the environment, which outweighs none', () => {
  assert.equal(overallVerdict(['no change in behaviour', 'environment changed', 'not compared']), 'environment changed');
  assert.equal(overallVerdict(['environment changed', 'behaviour changed']), 'behaviour changed');
  assert.equal(overallVerdict(['no change in behaviour', 'not compared']), 'no change in behaviour');
  assert.equal(overallVerdict(['not compared']), 'not compared');
});
