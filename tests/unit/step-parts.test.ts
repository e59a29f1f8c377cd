// A step written once with its facts and line (src/authoring/step-parts.ts), and
// article 076, written that way, as the one loader reads it against its committed runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { load } from 'js-yaml';
import { answersPart, curlPart, measured, part, rulesPart } from '../../src/authoring/step-parts.ts';
import { exec, inPod, requestsArgv } from '../../src/experiment/steps.ts';
import { stdout } from '../../src/evidence/fact-kit.ts';
import { evidenceFromDisk } from '../../src/evidence/runs/from-disk.ts';
import { loadArticle } from '../../src/authoring/load.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const curlTo = (url: string) => () => ['curl', '--silent', '--show-error', '--max-time', '3', url];

test('measured(): the steps in order, their facts and variant facts merged, a line under each step that has one', () => {
  const answered = curlPart(
    inPod('from-pod', 'client', 'worker', 'from the pod', curlTo('http://10.96.0.10/')),
    'answered',
    { zh: '回答 {from-pod.client}', en: 'answered {from-pod.client}' },
    {
      'from-pod.server': stdout('from-pod', /^server=(\S+)$/m),
    },
  );
  const failed = curlPart(exec('from-node', 'worker2', 'from the node', curlTo('http://10.96.0.10/')), 'failed', {
    zh: '{from-node.error}',
    en: '{from-node.error}',
  });
  const rules = part(
    exec('rules', 'worker2', 'the rules', () => ['iptables-save'], { variants: ['iptables'] }),
    {},
    undefined,
    {
      iptables: { 'rules.drop': stdout('rules', /^(-A .* -j DROP)$/m) },
    },
  );
  const nft = part(
    exec('nft', 'worker2', 'the ruleset', () => ['nft', 'list', 'ruleset'], { variants: ['nftables'] }),
    {},
    { zh: '规则', en: 'rules' },
    {
      nftables: { 'nft.drop': stdout('nft', /drop/) },
    },
  );
  const parts = measured(answered, failed, rules, nft);

  assert.deepEqual(
    parts.steps.map((s) => s.id),
    ['from-pod', 'from-node', 'rules', 'nft'],
  );
  assert.deepEqual(Object.keys(parts.facts), ['from-pod.timeout', 'from-pod.client', 'from-pod.server', 'from-node.timeout', 'from-node.error']);
  assert.deepEqual(Object.keys(parts.variantFacts), ['iptables', 'nftables']);
  assert.deepEqual(Object.keys(parts.variantFacts.iptables), ['rules.drop']);
  assert.deepEqual(Object.keys(parts.lines), ['from-pod', 'from-node', 'nft'], 'a step without a line has none');
  assert.equal(parts.lines['from-pod'].en, 'answered {from-pod.client}');
});

test('measured(): one fact id given by two steps is refused, naming both; in a variant too', () => {
  const a = part(
    exec('a', 'worker', 'a', () => ['true']),
    { 'shared.value': stdout('a', /(.*)/) },
  );
  const b = part(
    exec('b', 'worker', 'b', () => ['true']),
    { 'shared.value': stdout('b', /(.*)/) },
  );
  assert.throws(() => measured(a, b), /^Error: measured\(\): fact "shared\.value" is given by step "a" and by step "b"$/);
  const c = part(
    exec('c', 'worker', 'c', () => ['true']),
    {},
    undefined,
    { nftables: { 'x.y': stdout('c', /(.*)/) } },
  );
  const d = part(
    exec('d', 'worker', 'd', () => ['true']),
    {},
    undefined,
    { nftables: { 'x.y': stdout('d', /(.*)/) } },
  );
  assert.throws(() => measured(c, d), /variantFacts\.nftables: fact "x\.y" is given by step "c" and by step "d"/);
  // The same id in two variants is two facts, one per variant's runs.
  const e = part(
    exec('e', 'worker', 'e', () => ['true']),
    {},
    undefined,
    { iptables: { 'x.y': stdout('e', /(.*)/) } },
  );
  assert.doesNotThrow(() => measured(c, e));
});

test('a definition whose parts give one fact id twice is refused on load, in one line naming its file and both steps', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'shice-step-parts-'));
  try {
    const slug = '099-twice';
    mkdirSync(join(dir, 'content/articles', slug), { recursive: true });
    const kit = pathToFileURL(join(root, 'src/authoring/article.ts')).href;
    writeFileSync(
      join(dir, 'content/articles', slug, 'article.ts'),
      `import { measured, part, exec, stdout } from ${JSON.stringify(kit)};\n` +
        `measured(part(exec('a', 'worker', 'a', () => ['true']), { 'x.y': stdout('a', /(.*)/) }), part(exec('b', 'worker', 'b', () => ['true']), { 'x.y': stdout('b', /(.*)/) }));\n` +
        'export default {};\n',
    );
    await assert.rejects(loadArticle(dir, slug), (error: Error) => {
      assert.equal(error.message, `content/articles/${slug}/article.ts: measured(): fact "x.y" is given by step "a" and by step "b"`);
      return true;
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('article 076, written as parts: the loader finds its steps in the order its committed runs ran them, each with its line', async () => {
  const article = await loadArticle(root, '076-internal-traffic-policy');
  const ids = article.experiment.steps.map((s) => s.id);
  for (const folder of ['snapshots', 'snapshots.nftables']) {
    const run = load(readFileSync(join(root, 'content/articles/076-internal-traffic-policy', folder, 'run.yaml'), 'utf8')) as { steps: string[] };
    assert.deepEqual(
      run.steps,
      ids.filter((id) => run.steps.includes(id)),
      `${folder}: the committed run's steps, in the definition's order`,
    );
  }
  assert.deepEqual(Object.keys(article.lines).sort(), [...ids].sort(), 'every step has its line');
  // The facts each part gives, derived from the committed runs' real output.
  for (const [variant, folder, rules] of [
    ['iptables', 'snapshots', 'iptables-worker2.dropRule'],
    ['nftables', 'snapshots.nftables', 'nft-worker2.drop.verdict'],
  ] as const) {
    const evidence = evidenceFromDisk('076-internal-traffic-policy', join(root, 'content/articles/076-internal-traffic-policy', folder), article, {
      variants: false,
      variant,
    });
    const value = (id: string) => evidence.facts.get(id)?.value;
    assert.equal(value('local-from-worker.server'), 'backend', `${variant}: the server a part reads beside curl's facts`);
    assert.match(value('local-from-worker2.error') ?? '', /timed out/i, `${variant}: a failed curl's message`);
    assert.ok(value(rules), `${variant}: ${rules}, a fact of that mode's rules part`);
  }
});

test("rulesPart(): a node's whole ruleset in one mode's runs only, its facts that mode's; answersPart(): a step of many requests and its counts", () => {
  const line = { zh: '{r.x}', en: '{r.x}' };
  const ipt = rulesPart('r', 'worker', 'iptables', line, { 'r.x': stdout('r', /x/) }, { counters: true, what: ', later' });
  assert.equal(ipt.step.kind, 'exec');
  if (ipt.step.kind !== 'exec') return;
  assert.deepEqual([ipt.step.node, ipt.step.title, ipt.step.variants], ['worker', "worker's iptables rules, every table, with counters, later", ['iptables']]);
  assert.deepEqual(ipt.step.command(undefined as never), ['iptables-save', '-c']);
  assert.deepEqual([Object.keys(ipt.facts), Object.keys(ipt.variantFacts.iptables)], [[], ['r.x']]);
  const nft = rulesPart('n', 'worker2', 'nftables', { zh: '', en: '' }, {});
  if (nft.step.kind !== 'exec') return;
  assert.deepEqual(
    [nft.step.title, nft.step.variants, nft.step.command(undefined as never)],
    ["worker2's nftables ruleset", ['nftables'], ['nft', 'list', 'ruleset']],
  );

  // One curl, each request on a connection of its own (a glob alone reuses one), spaced when a rate is given.
  const argv = requestsArgv('http://10.96.0.10/', 8, { maxTime: '2', rate: '20/m' });
  assert.deepEqual(argv, [
    'curl',
    '--silent',
    '--show-error',
    '--max-time',
    '2',
    '--header',
    'Connection: close',
    '--write-out',
    ' %{http_code} %{remote_ip}\\n',
    '--rate',
    '20/m',
    'http://10.96.0.10/?request=[1-8]',
  ]);
  assert.ok(!requestsArgv('http://10.96.0.10/', 3, { maxTime: '2' }).includes('--rate'));
  const asked = answersPart(
    exec('ask', 'worker', 'ask', () => argv),
    { zh: '{ask.distinct}', en: '{ask.distinct}' },
  );
  assert.deepEqual(Object.keys(asked.facts), ['ask.timeout', 'ask.requests', 'ask.answered', 'ask.who', 'ask.distinct']);
  assert.ok(asked.facts['ask.who'].volatile, 'which backends answer is random by design');
});
