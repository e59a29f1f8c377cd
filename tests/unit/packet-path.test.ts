// The packet's path (src/article/render/packet-path.ts) drawn from article 074's
// definitions (the paths of content/articles/074-external-traffic-policy/article.ts) on the
// facts of its committed snapshots: every value in the SVG and in the list
// beside it is a bound element showing its fact's value, the two hold the same
// facts, nothing is typed in, a definition naming a fact the run lacks fails
// with one line naming the file, the path and the fact, and text is escaped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Fact } from '../../src/evidence/facts.ts';
import type { ArticleEvidence } from '../../src/evidence/runs/types.ts';
import { LANGS } from '../../src/evidence/template.ts';
import { htmlTextRuns, type HtmlElement } from '../../src/article/check/html-text.ts';
import { unboundRenderedNumbers } from '../../src/article/check/rendered-numbers.ts';
import { checkChineseProse, templateProse } from '../../src/article/check/zh-copy.ts';
import { packetPathsProblems } from '../../src/article/check/integration.ts';
import { PACKET_PATH_WORDS, packetPathHtml, packetPathProblems, type PacketPathDef } from '../../src/article/render/packet-path.ts';
import { evaluateClaims } from '../../src/evidence/claims.ts';
import { articleFrom } from '../../src/authoring/load.ts';
import definition074 from '../../content/articles/074-external-traffic-policy/article.ts';
import { article074, S074 } from '../support/articles.ts';
import { committedSnapshots, deriveEvidence, deriveRuns } from '../e2e/support/evidence.ts';

const { paths, claimDefs: claims } = article074;
const FILE = article074.file;
const headline = deriveEvidence(committedSnapshots);
const facts = headline.facts;
const IDS = ['cluster-via-worker', 'cluster-via-worker2', 'local-via-worker', 'local-via-worker2', 'health-check'];
const pathOf = (id: string): PacketPathDef => {
  const def = paths.find((p) => p.id === id);
  assert.ok(def, `article.ts declares the path "${id}"`);
  return def;
};
const clone = (def: PacketPathDef): PacketPathDef => structuredClone(def);

interface Bound {
  id: string;
  step: string | undefined;
  raw: string | undefined;
  text: string;
  variant: string | undefined;
  run: string | undefined;
  /** Where it sits: the SVG, the list beside it, or the caption and outcome. */
  place: 'svg' | 'list' | 'prose';
  /** The hop or station group (SVG) or list item it sits in. */
  group: string | undefined;
}

/** Every bound element of the HTML with the text it shows, as a browser would read it. */
function boundElements(html: string): Bound[] {
  const found = new Map<HtmlElement, Bound>();
  for (const run of htmlTextRuns(html, new Set())) {
    if (run.attribute !== undefined) continue;
    const element = run.ancestors.findLast((e) => e.attributes.has('data-fact'));
    if (!element) continue;
    const inSvg = run.ancestors.some((e) => e.name === 'svg');
    const inList = run.ancestors.some((e) => e.name === 'ol');
    const group = run.ancestors.findLast((e) => e.attributes.has('data-hop') || e.attributes.has('data-station'));
    const entry = found.get(element) ?? {
      id: element.attributes.get('data-fact')!,
      step: element.attributes.get('data-step'),
      raw: element.attributes.get('data-raw'),
      variant: element.attributes.get('data-variant'),
      run: element.attributes.get('data-run'),
      text: '',
      place: inSvg ? 'svg' : inList ? 'list' : 'prose',
      group: group?.attributes.get('data-hop') ?? group?.attributes.get('data-station'),
    };
    entry.text += run.text;
    found.set(element, entry);
  }
  return [...found.values()];
}

/** The bound facts of one hop or station, in order, where they sit. */
const groupFacts = (bound: readonly Bound[], place: Bound['place'], group: string) =>
  bound.filter((b) => b.place === place && b.group === group).map((b) => b.id);

test('every path of 074 is declared, and every value it shows is a bound element equal to its fact, in the SVG and in the list', () => {
  assert.deepEqual(
    paths.map((p) => p.id),
    IDS,
  );
  for (const def of paths) {
    for (const lang of LANGS) {
      const html = packetPathHtml(def, facts, lang, { file: FILE });
      const where = `${def.id} (${lang})`;
      assert.match(html, /<svg class="packet-path-svg" viewBox="0 0 340 \d+" width="100%" aria-hidden="true" focusable="false"/, where);
      assert.match(html, /<ol class="visually-hidden packet-path-steps">/, `${where}: a list for screen readers`);
      // The build's own check of a rendered page: no number outside a bound element, no bound element showing another value.
      assert.deepEqual(
        unboundRenderedNumbers(where, html, (id) => facts.get(id)?.value),
        [],
      );
      const bound = boundElements(html);
      assert.ok(bound.length > 6, `${where}: values are bound`);
      for (const b of bound) {
        const fact = facts.get(b.id)!;
        assert.ok(fact, `${where}: data-fact="${b.id}" is a fact of the run`);
        assert.deepEqual([b.text, b.step, b.raw], [fact.value, fact.step, fact.raw], `${where}: ${b.id}`);
        assert.equal(b.variant, undefined, `${where}: the article's own run carries no data-variant`);
      }
      // The list says what the drawing shows: the same facts, as many times.
      const count = (place: Bound['place']) =>
        bound
          .filter((b) => b.place === place)
          .map((b) => b.id)
          .sort();
      assert.deepEqual(count('list'), count('svg'), `${where}: the list holds the SVG's values`);
      // What was left for the reader outside the bound values has no digit in it (names like worker2 aside).
      const rest = html.replace(/<(tspan|span)\b[^>]*data-fact[^>]*>[^<]*<\/\1>/g, '').replace(/<[^>]*>/g, ' ');
      assert.doesNotMatch(rest, /(?<![\p{L}\d_-])\d/u, `${where}: no digit outside a bound element`);
    }
  }
});

test('each hop shows the addresses the run recorded for it', () => {
  const svg = (id: string) => boundElements(packetPathHtml(pathOf(id), facts, 'en', { file: FILE }));
  const ct = (f: string) => `conntrack-worker2.first.${f}`;

  // Cluster through worker: to worker's NodePort, then from worker's pod gateway (what the backend saw) to the pod.
  const viaWorker = svg('cluster-via-worker');
  assert.deepEqual(groupFacts(viaWorker, 'svg', 'client->worker'), ['node.control-plane.ip', 'node.worker.ip', 'service.s-cluster.nodePort']);
  assert.deepEqual(groupFacts(viaWorker, 'svg', 'worker->pod'), ['cluster-via-worker.client', 'pod.backend.ip']);
  assert.deepEqual(groupFacts(viaWorker, 'svg', 'worker'), ['node.worker.name', 'node.worker.ip', 'pod.backend.ip', 'node.worker.podGateway']);
  assert.equal(facts.get('cluster-via-worker.client')!.value, facts.get('node.worker.podGateway')!.value, 'the SNAT shown is the address the backend saw');

  // Cluster through worker2: worker2's conntrack entry, direction by direction; DNAT and SNAT at worker2.
  const viaWorker2 = svg('cluster-via-worker2');
  assert.deepEqual(groupFacts(viaWorker2, 'svg', 'client->worker2'), [ct('original.src'), ct('original.sport'), ct('original.dst'), ct('original.dport')]);
  assert.deepEqual(groupFacts(viaWorker2, 'svg', 'worker2'), [
    'node.worker2.name',
    'node.worker2.ip',
    ct('reply.src'),
    ct('reply.sport'),
    ct('reply.dst'),
    ct('reply.dport'),
  ]);
  assert.deepEqual(groupFacts(viaWorker2, 'svg', 'worker2->worker'), [ct('reply.dst'), ct('reply.dport'), ct('reply.src'), ct('reply.sport')]);
  assert.deepEqual(groupFacts(viaWorker2, 'svg', 'worker->pod'), ['cluster-via-worker2.client', 'pod.backend.ip', ct('reply.sport')]);
  assert.equal(facts.get(ct('original.src'))!.value, facts.get('node.control-plane.ip')!.value, 'the request came from the client');
  assert.equal(facts.get(ct('reply.dst'))!.value, facts.get('node.worker2.ip')!.value, 'SNAT to worker2’s address');
  assert.equal(facts.get(ct('reply.src'))!.value, facts.get('pod.backend.ip')!.value, 'DNAT to the pod');
  assert.equal(facts.get('cluster-via-worker2.client')!.value, facts.get('node.worker2.ip')!.value, 'the backend saw worker2');

  // Local through worker: DNAT only; the backend saw the client.
  const local = svg('local-via-worker');
  assert.deepEqual(groupFacts(local, 'svg', 'client->worker'), ['node.control-plane.ip', 'node.worker.ip', 'service.s-local.nodePort']);
  assert.deepEqual(groupFacts(local, 'svg', 'worker->pod'), ['local-via-worker.client', 'pod.backend.ip']);
  assert.equal(facts.get('local-via-worker.client')!.value, facts.get('node.control-plane.ip')!.value);

  // Local through worker2: one hop, the DROP at worker2, worker and the pod never reached.
  const dropHtml = packetPathHtml(pathOf('local-via-worker2'), facts, 'en', { file: FILE });
  const drop = boundElements(dropHtml);
  assert.deepEqual(groupFacts(drop, 'svg', 'client->worker2'), ['node.control-plane.ip', 'node.worker2.ip', 'service.s-local.nodePort']);
  assert.deepEqual(groupFacts(drop, 'svg', 'worker2'), ['node.worker2.name', 'node.worker2.ip', 'iptables-worker2.dropPort']);
  assert.equal(facts.get('iptables-worker2.dropPort')!.value, facts.get('service.s-local.nodePort')!.value, 'the DROP is for the port the client asked');
  assert.match(dropHtml, /<text class="pp-event pp-event-drop"/);
  assert.equal((dropHtml.match(/<g class="pp-hop"/g) ?? []).length, 1, 'nothing goes past worker2');
  assert.match(dropHtml, /<g class="pp-station pp-node pp-idle" data-station="worker">/);
  assert.match(dropHtml, /<g class="pp-station pp-pod pp-idle" data-station="pod">/);
  assert.deepEqual(
    drop.filter((b) => b.place === 'prose').map((b) => b.id),
    ['local-via-worker2.timeout', 'local-via-worker2.error', 'local-via-worker2.rc', 'local-via-worker2.seconds'],
  );

  // The health check: the client probes each node's healthCheckNodePort; each node answers for itself.
  const healthHtml = packetPathHtml(pathOf('health-check'), facts, 'en', { file: FILE });
  const health = boundElements(healthHtml);
  assert.equal((healthHtml.match(/<text class="pp-leg"/g) ?? []).length, 2, 'one leg per probe');
  assert.deepEqual(groupFacts(health, 'svg', 'client->worker'), ['node.control-plane.ip', 'node.worker.ip', 'service.s-lb.healthCheckNodePort']);
  assert.deepEqual(groupFacts(health, 'svg', 'client->worker2'), ['node.control-plane.ip', 'node.worker2.ip', 'service.s-lb.healthCheckNodePort']);
  assert.deepEqual(groupFacts(health, 'svg', 'worker'), [
    'node.worker.name',
    'node.worker.ip',
    'health-worker.status',
    'health-worker.reason',
    'health-worker.localEndpoints',
  ]);
  assert.deepEqual(groupFacts(health, 'svg', 'worker2'), [
    'node.worker2.name',
    'node.worker2.ip',
    'health-worker2.status',
    'health-worker2.reason',
    'health-worker2.localEndpoints',
  ]);
  // What the drawing shows is what the article's claims rest on, in this very run.
  const results = evaluateClaims(claims, facts, (step) => `${committedSnapshots}/${step}.yaml`);
  for (const id of [
    'cluster-same-node-sees-gateway',
    'cluster-forward-sees-forwarding-node',
    'local-keeps-client',
    'local-drops-without-backend',
    'health-check-follows-local-endpoints',
    'cluster-extra-hop',
  ]) {
    assert.equal(results.find((r) => r.id === id)?.status, 'holds', id);
  }
});

test('a definition naming a fact the run lacks fails with one line naming the file, the path and the fact', () => {
  const station = clone(pathOf('cluster-via-worker2'));
  station.stations.find((s) => s.id === 'worker')!.address = 'node.worker3.ip';
  assert.throws(
    () => packetPathHtml(station, facts, 'zh', { file: FILE }),
    (error: Error) => {
      assert.equal(
        error.message,
        `${FILE}: path "cluster-via-worker2": no fact "node.worker3.ip" (station "worker" address) in the article's own run (article.ts, or one every run has)`,
      );
      return true;
    },
  );
  const placeholder = clone(pathOf('health-check'));
  placeholder.legs[1]!.events![0]!.text.en = 'Answers HTTP {health-worker3.status}';
  assert.throws(
    () => packetPathHtml(placeholder, facts, 'zh', { file: FILE }),
    /^EvidenceError: content\/articles\/074-external-traffic-policy\/article\.ts: path "health-check": no fact "health-worker3\.status" \(leg 2 event 1 \(at worker2\)\) in the article's own run \(article\.ts, or one every run has\)$/,
  );
  // A fact the run lost (a snapshot without it) is caught the same way.
  const lost = new Map(facts);
  lost.delete('iptables-worker2.dropPort');
  assert.throws(
    () => packetPathHtml(pathOf('local-via-worker2'), lost, 'en', { file: FILE }),
    (error: Error) => {
      assert.equal(error.message.split('\n').length, 1);
      assert.match(error.message, /path "local-via-worker2": no fact "iptables-worker2\.dropPort" \(leg 1 event 1 \(at worker2\)\)/);
      return true;
    },
  );
});

test('the build checks every path of the article, used on a page or not: one line per unknown fact', () => {
  const broken = clone(pathOf('local-via-worker'));
  broken.legs[0]!.hops[0]!.dst!.port = 'service.s-nowhere.nodePort';
  const evidence = { facts } as unknown as ArticleEvidence;
  assert.deepEqual(packetPathsProblems([pathOf('cluster-via-worker'), broken, pathOf('cluster-via-worker')], FILE, evidence), [
    `${FILE}: path "local-via-worker": no fact "service.s-nowhere.nodePort" (leg 1 hop 1 (client -> worker) dst port) in any run of the article (article.ts, or one every run has)`,
    `${FILE}: path "cluster-via-worker" is declared twice`,
  ]);
  // Paths that are no list are refused by the loader, naming the file and the field.
  assert.throws(
    () => articleFrom({ ...definition074, paths: { 'cluster-via-worker': pathOf('cluster-via-worker') } }, S074),
    /^Error: content\/articles\/074-external-traffic-policy\/article\.ts: field "paths": expected a list, got object$/,
  );
  // The committed definitions pass against the committed runs.
  const runs = deriveRuns(committedSnapshots);
  const all = [runs.kind.iptables, runs.kind.nftables, runs.lab.iptables, runs.lab.nftables].map((r) => r.facts);
  for (const def of paths)
    assert.deepEqual(
      packetPathProblems(def, (id) => all.some((f) => f.has(id)), FILE),
      [],
      def.id,
    );
});

test('a definition that does not fit is refused, each problem on its line', () => {
  const def = clone(pathOf('cluster-via-worker2'));
  def.legs[0]!.hops.push({ from: 'client', to: 'pod', src: { address: 'node.control-plane.ip' } });
  def.legs[0]!.events!.push({ at: 'nowhere', kind: 'rewrite', text: { zh: 'DNAT 改为 10.244.2.2', en: 'DNAT to {pod.backend.ip' } });
  def.stations[0]!.label.en = 'Client {node.control-plane.ip}';
  assert.deepEqual(
    packetPathProblems(def, (id) => facts.has(id), FILE),
    [
      `${FILE}: path "cluster-via-worker2": station "client" label (en): a label is words only, without {node.control-plane.ip} (bind values in the station's name and address, or in an event)`,
      `${FILE}: path "cluster-via-worker2": leg 1 hop 4 (client -> pod): a hop joins two neighbouring stations of the leg`,
      `${FILE}: path "cluster-via-worker2": leg 1 event 3: at "nowhere", which is no station of the leg (client, worker2, worker, pod)`,
      `${FILE}: path "cluster-via-worker2": leg 1 event 3 text (zh): the text has a IP address "10.244.2.2" typed in; use a {fact.id} placeholder`,
      `${FILE}: path "cluster-via-worker2": leg 1 event 3 text (en): at column 9: expected {<fact id>} (or {{ for a literal brace), got "{pod.backend.ip"`,
    ],
  );
});

test('text is escaped: words and values alike, in the SVG, the list and the caption', () => {
  const hostile = new Map<string, Fact>(facts);
  const name = hostile.get('node.worker.name')!;
  hostile.set('node.worker.name', { ...name, value: '<img src=x onerror="alert(1)">&amp;' });
  const def = clone(pathOf('local-via-worker'));
  def.title.en = 'A <script>alert("x")</script> & more';
  def.stations.find((s) => s.id === 'worker')!.label.en = 'worker "<b>"';
  const html = packetPathHtml(def, hostile, 'en', { file: FILE });
  assert.ok(!html.includes('<img'), 'a value cannot open an element');
  assert.ok(!html.includes('<script'), 'a title cannot open an element');
  assert.ok(!html.includes('<b>'), 'a label cannot open an element');
  const shown = '&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&amp;amp;';
  assert.equal(html.split(shown).length - 1, 2, 'the value, escaped, in the SVG and in the list');
  assert.ok(html.includes('A &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; more'));
  assert.ok(html.includes('worker &quot;&lt;b&gt;&quot;'));
  // Escaped, the value still reads as the fact's: the binding holds.
  for (const b of boundElements(html).filter((b) => b.id === 'node.worker.name')) assert.equal(b.text, hostile.get('node.worker.name')!.value);
});

test('bound to another run, every value carries that run and comes from it', () => {
  const runs = deriveRuns(committedSnapshots);
  const nft = runs.kind.nftables;
  const binding = { variant: 'nftables', run: nft.runId };
  const html = packetPathHtml(pathOf('cluster-via-worker2'), nft.facts, 'en', { file: FILE, binding });
  const bound = boundElements(html);
  assert.ok(bound.length > 10);
  for (const b of bound) {
    assert.deepEqual([b.text, b.variant, b.run], [nft.facts.get(b.id)!.value, 'nftables', nft.runId], b.id);
  }
  assert.match(html, /aria-labelledby="packet-path-cluster-via-worker2-nftables"/, 'an id of its own beside the default run’s');
  // nftables mode keeps its drop in its own table: worker2's filter table has no DROP rule to show.
  assert.throws(
    () => packetPathHtml(pathOf('local-via-worker2'), nft.facts, 'en', { file: FILE, binding }),
    /^EvidenceError: \S+article\.ts: path "local-via-worker2": no fact "iptables-worker2\.dropPort" \(leg 1 event 1 \(at worker2\)\) in the run it binds \(nftables\)/,
  );
  // The lab's run has every fact too, with its own values.
  const lab = runs.lab.iptables;
  for (const def of paths) {
    for (const b of boundElements(packetPathHtml(def, lab.facts, 'zh', { file: FILE, binding: { environment: 'lab', run: lab.runId } }))) {
      assert.equal(b.text, lab.facts.get(b.id)!.value, `lab: ${def.id} ${b.id}`);
    }
  }
});

test('the Chinese of the definitions and of the renderer’s words follows the copy rules', () => {
  const strings: string[] = [...Object.values(PACKET_PATH_WORDS.zh)];
  for (const def of paths) {
    strings.push(def.title.zh, ...(def.outcome ? [def.outcome.zh] : []), ...def.stations.map((s) => s.label.zh));
    for (const leg of def.legs) {
      if (leg.label) strings.push(leg.label.zh);
      for (const hop of leg.hops) if (hop.note) strings.push(hop.note.zh);
      for (const event of leg.events ?? []) strings.push(event.text.zh);
    }
  }
  for (const s of strings) assert.deepEqual(checkChineseProse(templateProse(s)), [], s);
  // And the list reads as Chinese: full-width punctuation, a space only before a Latin word.
  const html = packetPathHtml(pathOf('cluster-via-worker'), facts, 'zh', { file: FILE });
  assert.match(html, /<li data-hop="worker-&gt;pod">发往后端 Pod（在 worker 上）：src <span/);
  assert.match(html, /<li data-hop="client-&gt;worker">发往 worker（有后端）：src <span/);
});
