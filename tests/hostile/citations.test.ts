// A real `astro build` of a copy of the site whose upstream.yaml no longer
// holds a cited sentence's lines at one release (as if upstream had moved them
// and the record were stale): the build fails with one line naming the
// article's file and line, the sentence and the release, and writes no page.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { siteCopy } from '../support/project-copy.ts';
import { parseUpstream, renderUpstream } from '../../src/evidence/upstream.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const ARTICLE = 'content/articles/074-external-traffic-policy';

test('a build against a release whose cited lines moved fails with one line naming the article, the sentence and the release', () => {
  const copy = siteCopy(root, 'citations');
  try {
    const file = join(copy, ARTICLE, 'upstream.yaml');
    const { record, problems } = parseUpstream(readFileSync(file, 'utf8'), file);
    assert.deepEqual(problems, []);
    const releases = [...record.keys()];
    const older = releases.at(-1)!;
    const cited = record.get(older)!.get('cluster-masquerades')!;
    // The release's file now says something else at the recorded place: the record no longer holds the quote.
    record.get(older)!.set('cluster-masquerades', { ...cited, text: cited.text.replace('in case we cross nodes', 'when the endpoint is remote') });
    writeFileSync(file, renderUpstream(record));

    const build = spawnSync(process.execPath, [join(copy, 'node_modules/astro/bin/astro.mjs'), 'build'], { cwd: copy, encoding: 'utf8', timeout: 170_000 });
    const said = `${build.stdout}\n${build.stderr}`;
    assert.notEqual(build.status, 0, said);
    const lines = said.split('\n').filter((l) => l.includes('cluster-masquerades'));
    assert.equal(lines.length, 1, said);
    assert.match(
      lines[0]!,
      new RegExp(
        `${ARTICLE}/zh\\.mdx:\\d+: the sentence ".*源地址伪装" cites pkg/proxy/iptables/proxier\\.go \\("cluster-masquerades"\\): its lines are not at pkg/proxy/iptables/proxier\\.go#L\\d+-L\\d+ of Kubernetes ${older.replaceAll('.', '\\.')} as ${ARTICLE}/upstream\\.yaml holds them`,
      ),
    );
    assert.doesNotMatch(said, /\n\s+at /, 'no stack');
    assert.ok(!existsSync(join(copy, 'dist', '074-external-traffic-policy', 'index.html')), 'no page is written');
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
});
