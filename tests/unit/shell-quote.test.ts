// --dry-run's commands as a POSIX shell reads them (src/evidence/shell-quote.ts,
// src/capture/session/plan-text.ts): every printed line, given to a real /bin/sh, is the
// exact argv the plan holds. The plans are the lab driver's for the committed
// articles, built without touching anything (as tests/unit/lab.test.ts does).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { shellCommand, shellWord } from '../../src/evidence/shell-quote.ts';
import { planLines } from '../../src/capture/session/plan-text.ts';
import { labDriver } from '../../src/capture/lab/index.ts';
import { Cluster } from '../../src/capture/kubernetes/cluster.ts';
import { symbolicTopologyView } from '../../src/experiment/symbolic-view.ts';
import { experimentForVariant } from '../../src/experiment/variants.ts';
import { experiment074 as article074, experiment075 as article075 } from '../support/articles.ts';
import type { Experiment } from '../../src/experiment/types.ts';
import { HEADLINE_RELEASE } from '../../src/experiment/kubernetes.ts';

const MARK = '\u0001end of command\u0001';

/**
 * What /bin/sh makes of each command line: the words it passes, read back NUL-separated.
 * One shell for every line; `printf` is a builtin, so the words are only printed, never run.
 */
function shellReads(lines: readonly string[]): string[][] {
  const script = lines.map((line) => `printf '%s\\0' ${line} '${MARK}'`).join('\n');
  const result = spawnSync('sh', ['-c', script], { encoding: 'utf8', timeout: 10_000 });
  assert.equal(result.status, 0, `sh refused the commands: ${result.stderr}`);
  const commands: string[][] = [];
  let current: string[] = [];
  for (const word of result.stdout.split('\0').slice(0, -1)) {
    if (word === MARK) {
      commands.push(current);
      current = [];
    } else current.push(word);
  }
  assert.deepEqual(current, [], 'nothing after the last command');
  return commands;
}

test('shellWord: safe characters stay bare, anything else is single-quoted', () => {
  assert.equal(shellWord('kubectl'), 'kubectl');
  assert.equal(shellWord('--kubeconfig=/tmp/shice-lab-1/kubeconfig/admin.conf'), '--kubeconfig=/tmp/shice-lab-1/kubeconfig/admin.conf');
  assert.equal(shellWord('user@host:10.244.0.0/16,+%_'), 'user@host:10.244.0.0/16,+%_');
  assert.equal(shellWord(''), "''", 'an empty argument is an argument');
  assert.equal(shellWord('Connection: close'), "'Connection: close'");
  assert.equal(shellWord('$HOME'), "'$HOME'");
  assert.equal(shellWord("the run's namespaces"), "'the run'\\''s namespaces'");
  assert.equal(shellWord("'"), "''\\'''");
  assert.equal(shellWord('<worker.ip>'), "'<worker.ip>'", 'a bare < or > would be a redirection');
  for (const unsafe of ['a b', 'a\tb', 'a\nb', '*', '?', '~', '#x', '!', '&', ';', '|', '(', ')', '`x`', '\\', '"', '{a,b}', '[1-3]', 'é'])
    assert.equal(shellWord(unsafe), `'${unsafe}'`, JSON.stringify(unsafe));
});

test('shellCommand: arguments with a single quote, a space, a $, an empty string and a newline come back from a real sh exactly', () => {
  const argvs = [
    ['echo', "it's", 'two words', '$HOME', '', '$(echo injected)', '`echo injected`', 'line\nbreak', "''", '\\n', '*', '--write-out', ' %{http_code}\\n'],
    ['printf', '%s', ''],
    ['x', "'", "'\\''", '"', '#not a comment', 'a;b', 'a|b', 'a&&b', '<in', '>out'],
  ];
  assert.deepEqual(shellReads(argvs.map(shellCommand)), argvs);
});

test('shellReads itself: an unquoted argv does not come back as it was (the check can fail)', () => {
  const argv = ['echo', 'two words', "it's"];
  const plain = argv.join(' ');
  const result = spawnSync('sh', ['-c', `printf '%s\\0' ${plain}`], { encoding: 'utf8', timeout: 10_000 });
  assert.notDeepEqual(result.status === 0 ? result.stdout.split('\0').slice(0, -1) : null, argv);
});

/** The dry-run plan of one variant of an article, under the lab driver. */
function labPlan(experiment: Experiment, variant: string | null, article: string) {
  const forVariant = variant === null ? experiment : experimentForVariant(experiment, variant);
  const run = labDriver.create(forVariant, {
    runId: 'plan-1',
    kubernetes: HEADLINE_RELEASE,
    articleDir: article,
    root: '.',
    keep: false,
    flags: { 'kube-bin': '/opt/k8s' },
  });
  return new Cluster(run, forVariant, { articleDir: article }).plan(symbolicTopologyView);
}

test("--dry-run's lines: every command of the real plans (074 iptables and nftables, 075) reads back in sh as its argv, in order", () => {
  const cases: Array<[Experiment, string | null, string]> = [
    [article074, 'iptables', '074-external-traffic-policy'],
    [article074, 'nftables', '074-external-traffic-policy'],
    [article075, null, '075-local-uneven-weights'],
  ];
  for (const [experiment, variant, slug] of cases) {
    const article = fileURLToPath(new URL(`../../content/articles/${slug}/`, import.meta.url));
    const plan = labPlan(experiment, variant, article);
    const lines = planLines(plan, { slug, variant, driver: 'lab' });
    const commands = lines.filter((l) => !l.startsWith('#'));
    const argvs = [...plan.setup, ...plan.steps.flatMap((s) => s.argvs), ...plan.teardown];
    assert.equal(commands.length, argvs.length, `${slug} ${variant}: one line per argv`);
    assert.deepEqual(shellReads(commands), argvs, `${slug} ${variant}`);
    // The plan holds arguments a bare join would break: the symbolic values, a quote in a placeholder.
    assert.ok(
      commands.some((l) => l.includes("'<pid of every process left in the run'\\''s namespaces")),
      `${slug}: the quote inside a placeholder is escaped`,
    );
    assert.ok(argvs.flat().some((a) => a.includes('<')) && !commands.some((l) => /(^|\s)<[^']/.test(l)), `${slug}: no bare <placeholder>`);
    // The headings: comments, one per step and one for each end, in order.
    const headings = lines.filter((l) => l.startsWith('#'));
    assert.equal(headings[0], `# ${slug}${variant === null ? '' : ` variant ${variant}`} with --driver lab: setup`);
    assert.equal(headings.at(-1), '# teardown');
    assert.deepEqual(
      headings.slice(1, -1).map((h) => h.split(' ')[2]),
      plan.steps.map((s) => s.step.id),
    );
  }
});

test('a heading stays one comment line whatever a step title holds', () => {
  const lines = planLines(
    { setup: [], steps: [{ step: { id: 's', title: 'first line\nrm -rf /tmp/x' }, node: 'worker', argvs: [['true']] }], teardown: [] },
    { slug: 'x', variant: null, driver: 'lab' },
  );
  assert.deepEqual(lines, ['# x with --driver lab: setup', '# step s (worker): first line rm -rf /tmp/x, then the health check', 'true', '# teardown']);
});
