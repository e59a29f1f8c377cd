// Where capture:merge --report may write: judged before the merge touches anything,
// on real files, links and devices; and the write never goes through a link.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync, lstatSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { judgeReportPath, reportPathProblem, writeReport } from '../../src/capture/merge/report-file.ts';

const root = fileURLToPath(new URL('../../', import.meta.url)).replace(/\/$/, '');

test('a report goes to a new or plain file outside what the build reads; anything else is one line', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'shice-report-'));
  try {
    writeFileSync(join(tmp, 'old.md'), '# Capture: no change in behaviour\n');
    writeFileSync(join(tmp, 'notes.md'), 'my notes\n');
    writeFileSync(join(tmp, 'target'), 'not mine');
    symlinkSync(join(tmp, 'target'), join(tmp, 'link.md'));
    symlinkSync(join(root, 'content'), join(tmp, 'content-link'));
    linkSync(join(tmp, 'target'), join(tmp, 'second-name.md'));
    mkdirSync(join(tmp, 'folder'));
    assert.equal(reportPathProblem(join(tmp, 'new.md'), root), null);
    assert.equal(reportPathProblem(join(tmp, 'old.md'), root), null);
    const refused: Array<[string, RegExp]> = [
      [join(root, 'content/articles/074-external-traffic-policy/snapshots/run.yaml'), /^is inside content\/ of the checkout/],
      [join(root, 'content/articles/074-external-traffic-policy/article.ts'), /^is inside content\/ of the checkout/],
      [join(root, 'src/new-file.md'), /^is inside src\/ of the checkout/],
      [join(tmp, 'content-link', 'report.md'), /^is inside content\/ of the checkout/],
      [join(tmp, 'link.md'), /^is a symbolic link; /],
      [
        join(tmp, 'notes.md'),
        /^exists and is not a report this command wrote \(its first line is not "# Capture: …"\); expected a new file or an earlier report$/,
      ],
      [join(tmp, 'second-name.md'), /^has 2 hard links; /],
      [join(tmp, 'folder'), /^is a folder; /],
      ['/dev/full', /^is not a regular file; /],
      [join(tmp, 'missing', 'report.md'), /^its folder .*missing does not exist; /],
    ];
    for (const [file, expected] of refused) {
      const problem = reportPathProblem(file, root);
      assert.ok(problem !== null && expected.test(problem) && !problem.includes('\n'), `${file}: ${problem}`);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('the report replaces a link put in its place meanwhile, and never writes through it', () => {
  const tmp = realpathSync(mkdtempSync(join(tmpdir(), 'shice-report-')));
  try {
    writeFileSync(join(tmp, 'target'), 'not mine');
    const judged = judgeReportPath(join(tmp, 'report.md'), root);
    assert.ok('place' in judged);
    symlinkSync(join(tmp, 'target'), join(tmp, 'report.md'));
    writeReport(judged.place, '# Capture: no change in behaviour\n', root);
    assert.equal(readFileSync(join(tmp, 'target'), 'utf8'), 'not mine');
    assert.ok(lstatSync(join(tmp, 'report.md')).isFile());
    assert.equal(readFileSync(join(tmp, 'report.md'), 'utf8'), '# Capture: no change in behaviour\n');
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test("the report's folder replaced by a link between the check and the write: nothing is written through it, and the write says why in one line", () => {
  const tmp = realpathSync(mkdtempSync(join(tmpdir(), 'shice-report-')));
  try {
    // A checkout of its own: an article whose prose has the report's name.
    const project = join(tmp, 'project');
    const article = join(project, 'content/articles/074-x');
    mkdirSync(article, { recursive: true });
    const prose = '# The article\n';
    writeFileSync(join(article, 'en.mdx'), prose);
    const elsewhere = join(tmp, 'elsewhere');
    mkdirSync(elsewhere);
    for (const [to, expected] of [
      [article, /^its folder .*\/out was replaced after it was judged \(now .*\/project\/content\/articles\/074-x\); the report was not written$/],
      [elsewhere, /^its folder .*\/out was replaced after it was judged \(now .*\/elsewhere\); the report was not written$/],
    ] as const) {
      const out = join(tmp, 'out');
      mkdirSync(out);
      writeFileSync(join(out, 'en.mdx'), '# Capture: no change in behaviour\n');
      const judged = judgeReportPath(join(out, 'en.mdx'), project);
      assert.ok('place' in judged, JSON.stringify(judged));
      // Between the check and the write: the folder moved away, a link to another put in its place.
      renameSync(out, join(tmp, 'out.moved'));
      symlinkSync(to, out);
      assert.throws(
        () => writeReport(judged.place, '# Capture: behaviour changed\n', project),
        (error: Error) => expected.test(error.message) && !error.message.includes('\n'),
        to,
      );
      assert.equal(readFileSync(join(article, 'en.mdx'), 'utf8'), prose);
      assert.deepEqual(readdirSync(to).sort(), to === article ? ['en.mdx'] : []);
      rmSync(out);
      rmSync(join(tmp, 'out.moved'), { recursive: true });
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
