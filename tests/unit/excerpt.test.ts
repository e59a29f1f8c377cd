// Excerpts of real step output (074's committed runs): whole blocks and
// matching lines in the output's order, every left-out stretch an ellipsis,
// facts bound only to whole lines; and one clear line for what cannot be shown.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadSnapshots } from '../../src/evidence/load.ts';
import { excerptOf, factLines, ExcerptError, type ExcerptLine } from '../../src/article/render/excerpt.ts';

const ARTICLE = fileURLToPath(new URL('../../content/articles/074-external-traffic-policy/', import.meta.url));
const nft = loadSnapshots(join(ARTICLE, 'snapshots.nftables')).steps.get('nft-worker2')!.stdout;
const filter = loadSnapshots(join(ARTICLE, 'snapshots')).steps.get('iptables-worker2')!.stdout;
const text = (lines: readonly ExcerptLine[]) => lines.map((l) => (l.kind === 'gap' ? '…' : `${l.indent}${l.text}`));

test("whole nft blocks in the output's order, with an ellipsis for every stretch left out, none left unsaid", () => {
  const excerpt = excerptOf(
    nft,
    { blocks: ['chain nodeport-endpoints-check', 'chain filter-input', 'map no-endpoint-nodeports'] },
    'zh.mdx: <Excerpt nft-worker2>',
  );
  const shown = text(excerpt);
  // The map comes first in the output, then filter-input, then nodeport-endpoints-check: the output's order, not the list's.
  assert.equal(shown[0], '…');
  assert.equal(shown[1], 'map no-endpoint-nodeports {');
  assert.equal(shown.at(-1), '…');
  const input = shown.indexOf('chain filter-input {');
  const check = shown.indexOf('chain nodeport-endpoints-check {');
  assert.ok(shown.indexOf('map no-endpoint-nodeports {') < input && input < check);
  // filter-input is whole: both of its jumps, the second one included.
  assert.deepEqual(shown.slice(input, input + 5), [
    'chain filter-input {',
    '\ttype filter hook input priority filter; policy accept;',
    '\tct state new jump nodeport-endpoints-check',
    '\tct state new jump service-endpoints-check',
    '}',
  ]);
  assert.equal(shown[input - 1], '…', 'lines between the map and the chain were left out, and it says so');
  // Every output line is either shown or counted in a gap.
  const omitted = excerpt.reduce((n, l) => n + (l.kind === 'gap' ? l.omitted : 1), 0);
  assert.equal(
    omitted,
    nft
      .replace(/\n$/, '')
      .split('\n')
      .findLastIndex((l) => l.trim() !== '') + 1,
  );
});

test('a blank line between two shown lines is kept, not turned into an ellipsis', () => {
  const excerpt = excerptOf('a {\n\tx\n}\n\nb {\n\ty\n}\nc\n', { blocks: ['a', 'b'] }, 'w');
  assert.deepEqual(text(excerpt), ['a {', '\tx', '}', '', 'b {', '\ty', '}', '…']);
});

test('the lines holding a text: the DROP rule of s-local, with the lines around it left out and said to be', () => {
  const excerpt = excerptOf(filter, { matching: ['"default/s-local has no local endpoints"'] }, 'w');
  assert.equal(excerpt.length, 3);
  assert.deepEqual(
    excerpt.map((l) => l.kind),
    ['gap', 'line', 'gap'],
  );
  const rule = excerpt[1]!;
  assert.ok(rule.kind === 'line' && rule.text.startsWith('-A KUBE-EXTERNAL-SERVICES') && rule.text.endsWith('-j DROP'));
  assert.deepEqual(
    factLines(excerpt, [{ id: 'iptables-worker2.dropRule', value: rule.kind === 'line' ? rule.text : '' }], 'w'),
    new Map([[rule.kind === 'line' ? rule.index : -1, 'iptables-worker2.dropRule']]),
  );
});

test('what cannot be shown is one line naming the component and what was expected', () => {
  const where = 'zh.mdx: <Excerpt step="nft-worker2">';
  assert.throws(
    () => excerptOf(nft, { blocks: ['chain no-such-chain'] }, where),
    (e: unknown) => {
      assert.ok(e instanceof ExcerptError);
      assert.equal(e.message, `${where}: blocks: expected one line "chain no-such-chain {" in the output, found none`);
      return true;
    },
  );
  assert.throws(() => excerptOf('a {\n\tx\n', { blocks: ['a'] }, where), /the block "a \{" is not closed in the output/);
  assert.throws(() => excerptOf('a {\n}\na {\n}\n', { blocks: ['a'] }, where), /expected one line "a \{" in the output, found 2/);
  assert.throws(() => excerptOf(filter, { matching: ['no such text'] }, where), /matching: no line of the output contains "no such text"/);
  assert.throws(() => excerptOf(filter, {}, where), /expected blocks, matching or chainsMatching to pick at least one line/);
  assert.throws(() => excerptOf(filter, { chainsMatching: ['no such text'] }, where), /chainsMatching: no line of the output contains "no such text"/);
  assert.throws(() => excerptOf(filter, { chainsMatching: ['KUBE-EXTERNAL-SERVICES - [0:0]'] }, where), /chainsMatching: a line containing .* is not a rule/);
  const excerpt = excerptOf(nft, { blocks: ['chain filter-input'] }, where);
  // A fact that is part of a line, not a whole line, is not what the excerpt shows.
  assert.throws(
    () => factLines(excerpt, [{ id: 'x', value: 'jump nodeport-endpoints-check' }], where),
    /facts: "x" \("jump nodeport-endpoints-check"\) is not a whole line of the excerpt/,
  );
});

test("whole iptables chains by a text in one of their rules: every rule of the chain, the chains in the output's order", () => {
  const excerpt = excerptOf(filter, { chainsMatching: ['"default/s-local has no local endpoints"'] }, 'w');
  const rules = excerpt.filter((l) => l.kind === 'line').map((l) => (l.kind === 'line' ? l.text : ''));
  const chain = filter.split('\n').filter((l) => l.startsWith('-A KUBE-EXTERNAL-SERVICES '));
  assert.deepEqual(rules, chain, "the whole chain, s-lb's rule beside s-local's");
  assert.equal(excerpt[0]!.kind, 'gap');
});
