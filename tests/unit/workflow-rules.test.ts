// The workflows' own rules (scripts/lib/workflow-rules.ts, run by npm run
// lint:workflows before actionlint): on the real workflows, and on them with
// one mistake put back each.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { workflowProblems } from '../../scripts/lib/workflow-rules.ts';

const FILES = ['.github/workflows/capture.yml', '.github/workflows/site.yml'];
const read = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');

test('the workflows: every action pinned by commit SHA with its tag, every checkout without credentials, tokens only in steps', () => {
  for (const file of FILES) assert.deepEqual(workflowProblems(file, read(file)), [], file);
  // The one push gets the token in its own step, through git's environment.
  const capture = read('.github/workflows/capture.yml');
  assert.match(capture, /GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0="http\.\$\{GITHUB_SERVER_URL\}\/\.extraheader"/);
  assert.doesNotMatch(capture, /git (?:config|remote)[^\n]*(?:TOKEN|extraheader)/, 'nothing writes the token into .git/config');
});

test('an action by tag, by branch, by a short SHA or without its tag comment: one line naming the file, the line and what is expected', () => {
  const site = read('.github/workflows/site.yml');
  const pin = /actions\/setup-node@[0-9a-f]{40} # v[\d.]+/;
  const line = site.split('\n').findIndex((l) => pin.test(l)) + 1;
  for (const [wrong, shown] of [
    ['actions/setup-node@v4', '"actions/setup-node@v4"'],
    ['actions/setup-node@main', '"actions/setup-node@main"'],
    ['actions/setup-node@49933ea # v4.4.0', '"actions/setup-node@49933ea" # v4.4.0'],
    ['actions/setup-node@49933ea5288caeca8642d1e84afbd3f7d6820020', '"actions/setup-node@49933ea5288caeca8642d1e84afbd3f7d6820020"'],
    ["'actions/setup-node@v4' # v4", '"actions/setup-node@v4" # v4'],
  ])
    assert.deepEqual(workflowProblems('site.yml', site.replace(pin, wrong)), [
      `site.yml:${line}: uses ${shown}: expected the action pinned by commit SHA with its tag in a comment (uses: actions/setup-node@<40 hex digits> # v1.2.3)`,
    ]);
});

test('a checkout that keeps its token, and a token given to a whole job or workflow, are refused by field', () => {
  const capture = read('.github/workflows/capture.yml');
  const kept = capture.replace('persist-credentials: false', 'persist-credentials: true');
  assert.deepEqual(workflowProblems('capture.yml', kept), [
    'capture.yml: field "jobs.list.steps[0].with.persist-credentials" (actions/checkout) is "true": expected false (otherwise the token stays in .git/config for every later step)',
  ]);
  const unset = capture.replace(/\n {8}with:\n {10}persist-credentials: false/, '');
  assert.match(
    workflowProblems('capture.yml', unset)[0]!,
    /^capture\.yml: field "jobs\.list\.steps\[0\]\.with\.persist-credentials" \(actions\/checkout\) is not set: expected false/,
  );
  const jobEnv = capture.replace(
    '    runs-on: ubuntu-24.04\n    permissions:\n      contents: write',
    '    runs-on: ubuntu-24.04\n    env:\n      GH_TOKEN: ${{ secrets.GITHUB_TOKEN }}\n    permissions:\n      contents: write',
  );
  assert.deepEqual(workflowProblems('capture.yml', jobEnv), [
    'capture.yml: field "jobs.merge.env.GH_TOKEN" is "${{ secrets.GITHUB_TOKEN }}": expected a credential only in the env of the step that uses it',
  ]);
  const workflowEnv = capture.replace('permissions:\n  contents: read', 'env:\n  TOKEN: ${{ github.token }}\n\npermissions:\n  contents: read');
  assert.deepEqual(workflowProblems('capture.yml', workflowEnv), [
    'capture.yml: field "env.TOKEN" is "${{ github.token }}": expected a credential only in the env of the step that uses it',
  ]);
});
