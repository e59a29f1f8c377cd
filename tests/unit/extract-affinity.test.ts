// Where kube-proxy remembers a ClientIP client, read from 077's committed kind
// runs: iptables-save -c after 30 requests to s-sticky (one --rcheck rule
// matched all but the first) and after 8 requests to s-brief spaced wider than
// its timeout (none matched), and nft list ruleset (one affinity set holds the
// client). Each reader says what it looked for when the output lacks it.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { affinitySets, recentChecks, recentTotals, rememberedAffinitySet, rememberedRecentCheck } from '../../src/evidence/extract/affinity.ts';
import { parseIptablesSave } from '../../src/evidence/extract/iptables-save.ts';
import { findTable, parseNftRuleset } from '../../src/evidence/extract/nft.ts';
import { ExtractError } from '../../src/evidence/errors.ts';
import { loadSnapshots } from '../../src/evidence/load.ts';
import { parseAnswers } from '../../src/evidence/extract/answers.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const article = join(root, 'content/articles/077-session-affinity');
const iptablesRun = loadSnapshots(join(article, 'snapshots'));
const nftRun = loadSnapshots(join(article, 'snapshots.nftables'));
const stdoutOf = (run: typeof iptablesRun, step: string) => run.steps.get(step)!.stdout;
const podIP = (run: typeof iptablesRun, name: string) => run.run.pods.find((p) => p.name === name)!.ip;

test('iptables: one --rcheck rule per endpoint, and the one that matched is the backend that answered every request', () => {
  const save = parseIptablesSave(stdoutOf(iptablesRun, 'iptables-worker'));
  const checks = recentChecks(save, 'default/s-sticky');
  assert.equal(checks.length, 3);
  assert.ok(checks.every((c) => c.seconds === '45'));
  const answers = parseAnswers(stdoutOf(iptablesRun, 'sticky'));
  const remembered = rememberedRecentCheck(save, 'default/s-sticky');
  assert.equal(remembered.endpoint, podIP(iptablesRun, answers[0]!.who));
  assert.equal(remembered.packets, answers.length - 1, 'every connection but the first was sent on by the check');
  assert.match(remembered.line, /^\[\d+:\d+\] -A KUBE-SVC-\S+ .*--rcheck --seconds 45 --reap/);
});

test('iptables: requests spaced wider than the timeout are each recorded and none is sent on by a check', () => {
  const save = parseIptablesSave(stdoutOf(iptablesRun, 'iptables-brief'));
  assert.deepEqual(recentTotals(save, 'default/s-brief'), { checked: 0, recorded: parseAnswers(stdoutOf(iptablesRun, 'brief-spaced')).length });
  // s-sticky's checks still hold what they counted before.
  assert.equal(recentTotals(save, 'default/s-sticky').checked, rememberedRecentCheck(save, 'default/s-sticky').packets);
});

test('iptables: without counters, and for a Service with no affinity, the reader says what it needed', () => {
  const bare = parseIptablesSave(stdoutOf(iptablesRun, 'iptables-worker').replace(/^\[\d+:\d+\] /gm, ''));
  assert.throws(
    () => rememberedRecentCheck(bare, 'default/s-sticky'),
    (e: unknown) => e instanceof ExtractError && /has no counters \(iptables-save without -c\)/.test(e.message),
  );
  const save = parseIptablesSave(stdoutOf(iptablesRun, 'iptables-worker'));
  assert.throws(() => rememberedRecentCheck(save, 'default/s-none'), /looked for --rcheck rules of default\/s-none in the nat table, found none/);
  assert.throws(() => recentTotals(save, 'default/s-none'), /looked for the -m recent --set rules of default\/s-none/);
  // Before any request to s-brief, none of its checks matched: not one remembered endpoint.
  assert.throws(() => rememberedRecentCheck(save, 'default/s-brief'), /expected one --rcheck rule of default\/s-brief with matched packets, found 0 of 3/);
});

test('nft: one affinity set per endpoint with the Service timeout, and the one holding the client is the answering backend', () => {
  const table = findTable(parseNftRuleset(stdoutOf(nftRun, 'nft-worker')), 'ip', 'kube-proxy');
  const sets = affinitySets(table, 'default/s-sticky');
  assert.equal(sets.length, 3);
  assert.ok(sets.every((s) => s.timeout === '45s'));
  const remembered = rememberedAffinitySet(table, 'default/s-sticky');
  assert.deepEqual(remembered.clients, [podIP(nftRun, 'client')]);
  assert.equal(remembered.endpoint, podIP(nftRun, parseAnswers(stdoutOf(nftRun, 'sticky'))[0]!.who));
  assert.ok(affinitySets(table, 'default/s-brief').every((s) => s.timeout === '2s'));
  assert.deepEqual(affinitySets(table, 'default/s-none'), []);
  assert.throws(() => rememberedAffinitySet(table, 'default/s-none'), /looked for affinity sets of default\/s-none in table ip kube-proxy, found none/);
  assert.throws(() => rememberedAffinitySet(table, 'default/s-brief'), /expected one affinity set of default\/s-brief holding a client, found 0 of 3/);
});
