// `npm run cite` as an author runs it, on a copy of the project: from the Go
// modules of the releases the runs used, it writes exactly the upstream.yaml
// each reference article commits (so the committed lines are upstream's own),
// says "unchanged" on a second run, and a citation whose lines a release does
// not hold fails with one line naming it, the file and the release, the
// record left as it was.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { projectCopy } from '../support/project-copy.ts';
import { REFERENCE_ARTICLES } from '../support/reference-articles.ts';
import { kernelTest } from './support.ts';

const root = fileURLToPath(new URL('../../', import.meta.url)).replace(/\/$/, '');

kernelTest(
  "npm run cite writes the reference articles' committed upstream.yaml from the Go modules, and refuses lines a release lacks",
  async (t) => {
    const tmp = mkdtempSync(join(tmpdir(), 'shice-cite-'));
    try {
      const project = projectCopy(root, tmp);
      const record = (slug: string) => join(project, 'content/articles', slug, 'upstream.yaml');
      for (const slug of REFERENCE_ARTICLES) rmSync(record(slug));
      const cite = (...args: string[]) => execa(process.execPath, [join(project, 'scripts/cite.ts'), ...args], { cwd: project, reject: false });

      const first = await cite(...REFERENCE_ARTICLES);
      t.diagnostic(first.stdout);
      assert.equal(first.exitCode, 0, first.stderr);
      for (const slug of REFERENCE_ARTICLES)
        assert.equal(readFileSync(record(slug), 'utf8'), readFileSync(join(root, 'content/articles', slug, 'upstream.yaml'), 'utf8'), `${slug}: as committed`);
      const again = await cite(REFERENCE_ARTICLES[0]!);
      assert.match(again.stdout, /: \d+ citation\(s\) at v[\d.]+(, v[\d.]+)*, unchanged$/m);

      // A quote no release holds: the definition's first cited line changed by a word.
      const definition = join(project, 'content/articles', REFERENCE_ARTICLES[0]!, 'article.ts');
      const before = readFileSync(record(REFERENCE_ARTICLES[0]!), 'utf8');
      writeFileSync(definition, readFileSync(definition, 'utf8').replace("'// in case we cross nodes.'", "'// in case we cross zones.'"));
      const refused = await cite(REFERENCE_ARTICLES[0]!);
      assert.equal(refused.exitCode, 1, refused.stdout);
      const lines = refused.stderr.trim().split('\n');
      assert.match(
        lines[0]!,
        /^cite: content\/articles\/074-external-traffic-policy\/article\.ts, citation "cluster-masquerades": the cited lines are not in pkg\/proxy\/iptables\/proxier\.go at Kubernetes v1\.\d+\.\d+$/,
      );
      assert.equal(lines.at(-1), 'cite: content/articles/074-external-traffic-policy/upstream.yaml left as it was');
      assert.equal(readFileSync(record(REFERENCE_ARTICLES[0]!), 'utf8'), before, 'the record is untouched');

      const option = await cite('--nope');
      assert.equal(option.exitCode, 2);
      assert.match(option.stderr, /^cite: Unknown option '--nope' \(see --help\); usage: npm run cite -- \[slug \.\.\.\]$/);
      const unknown = await cite('999-nothing');
      assert.equal(unknown.exitCode, 2);
      assert.equal(unknown.stderr, 'cite: "999-nothing": no such article in content/articles');
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
    // A machine whose module cache holds the headline release only downloads the older three first (18 MB each).
  },
  600_000,
);
