import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { codeTokens, codeTokensHtml, escapeHtml, factHtml, valueForm } from '../../src/article/render/fact-html.ts';
import { loadArticle } from '../../src/authoring/load.ts';
import { evidenceFromDisk } from '../../src/evidence/runs/from-disk.ts';
import { measuredRuns } from '../../src/evidence/runs/environments.ts';
import type { Fact } from '../../src/evidence/facts.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** Every fact of every committed run of both articles, as the pages derive them. */
async function committedFacts(): Promise<Fact[]> {
  const facts: Fact[] = [];
  for (const slug of ['074-external-traffic-policy', '075-local-uneven-weights']) {
    const evidence = evidenceFromDisk(slug, join(root, 'content/articles', slug, 'snapshots'), await loadArticle(root, slug));
    for (const run of measuredRuns(evidence)) facts.push(...run.evidence.facts.values());
  }
  return facts;
}

test('a fact made of words may wrap; a token (an address, a port, a path) never breaks', () => {
  // Chinese text has no spaces to break at: without this it ran off a phone's screen (the run record's stand-in list).
  assert.equal(valueForm({ id: 'run.standIn.3.zh', value: '节点的临时存储容量是存放其状态目录的文件系统的大小。' }), 'words');
  for (const token of ['172.18.0.3', '31450', 'pod.status.containerStatuses[].image', 'kx-main-worker'])
    assert.equal(valueForm({ id: 'x', value: token }), 'token', token);
  assert.equal(
    factHtml({ id: 'run.standIn.3.zh', step: 'run', value: '节点的临时存储容量。' }),
    '<span class="wraps" data-fact="run.standIn.3.zh" data-step="run">节点的临时存储容量。</span>',
  );
  assert.equal(factHtml({ id: 'node.worker.ip', step: 'run', value: '172.18.0.3' }), '<span data-fact="node.worker.ip" data-step="run">172.18.0.3</span>');
});

test('rules, commands and outputs of the committed runs are code; the run’s sentences about itself are words', async () => {
  const facts = await committedFacts();
  const byId = (pattern: RegExp) => facts.filter((f) => pattern.test(f.id) && /\s/.test(f.value));
  const code = [
    /\.(argv|command)$/,
    /^iptables-worker2\.dropRule$/,
    /^iptables-worker\./,
    /^nft-worker2\.(inputHook|inputJump|checkRule)$/,
    /\.error$/,
    /\.reason$/,
    /^run\.version\./,
  ];
  for (const pattern of code) {
    const found = byId(pattern);
    assert.ok(found.length > 0, `${pattern} has values with spaces in the committed runs`);
    for (const f of found) assert.equal(valueForm(f), 'code', `${f.id} = ${f.value}`);
  }
  for (const pattern of [/^run\.environment\./, /^run\.standIn\.\d+\.(zh|en|from)$/, /^run\.host$/, /^version\.os$/]) {
    const found = byId(pattern);
    assert.ok(found.length > 0, `${pattern} has values with spaces in the committed runs`);
    for (const f of found) assert.equal(valueForm(f), 'words', `${f.id} = ${f.value}`);
  }
  // The reader's example: the DROP rule, each token whole, the text unchanged.
  const rule = facts.find((f) => f.id === 'iptables-worker2.dropRule')!;
  const html = factHtml(rule);
  assert.match(html, /^<span class="wraps code" data-fact="iptables-worker2\.dropRule"/);
  assert.match(html, /<span class="tok">-A KUBE-EXTERNAL-SERVICES<\/span> <span class="tok">-p tcp<\/span>/);
  assert.match(html, /<span class="tok">-j DROP<\/span><\/span>$/);
  assert.equal(html.replace(/<[^>]*>/g, ''), escapeHtml(rule.value));
});

test('code tokens keep the whitespace between them as it was, and every character; a flag keeps its argument', () => {
  assert.equal(codeTokensHtml('-A  KUBE-X -j DROP'), '<span class="tok">-A  KUBE-X</span> <span class="tok">-j DROP</span>');
  assert.equal(
    codeTokensHtml('curl --silent --max-time 3 http://a/'),
    'curl <span class="tok">--silent</span> <span class="tok">--max-time 3</span> <span class="tok">http://a/</span>',
  );
  assert.equal(
    codeTokensHtml(' lead &quot;a b&quot; - x'),
    ' lead <span class="tok">&quot;a</span> <span class="tok">b&quot;</span> <span class="tok">-</span> x',
  );
  // Words have nowhere to break but their spaces: curl's error stays plain text.
  assert.equal(codeTokensHtml('Connection timed out after 3001 milliseconds'), 'Connection timed out after 3001 milliseconds');
  for (const text of ['a', ' a', 'a ', '-x', '-x y ', 'a\tb\n c']) assert.equal(codeTokensHtml(text).replace(/<[^>]*>/g, ''), text, JSON.stringify(text));
  // A value from a snapshot is escaped before it is split: no markup gets through.
  assert.equal(factHtml({ id: 'x.argv', step: 'x', value: 'echo <b>hi</b> now' }).includes('<b>'), false);
});

test('a value splits into the same tokens as its escaped form: the string and the hast markup of a value agree', async () => {
  const values = [...(await committedFacts()).map((f) => f.value), '-j "DROP" <x> & y', '"a b" -<c> -- "&amp;"', ' lead\t&quot;a b&quot; - x '];
  for (const value of values) {
    const escapedPieces = codeTokens(value).map((p) => ({ text: escapeHtml(p.text), whole: p.whole }));
    assert.deepEqual(codeTokens(escapeHtml(value)), escapedPieces, value);
  }
});
