// `npm run new -- <slug>`: scaffolds content/articles/<slug>/ with every file an
// article needs, each commented with what it is for. The edge: argv in, files
// out; the files themselves come from src/authoring/scaffold.ts.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load } from 'js-yaml';
import { newArticleProblem, SCAFFOLD_SERIES, scaffoldFiles, slugProblem } from '../src/authoring/scaffold.ts';
import { articleEntry, articleFolderProblem } from '../src/authoring/load.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const USAGE = `usage: npm run new -- <slug>
  makes content/articles/<slug>/ with every file an article needs, each saying what it is for:
  article.ts (the one definition: experiment, facts, claims, lines), manifests/app.yaml, zh.mdx, en.mdx,
  evidence.zh.mdx, evidence.en.mdx (the page of evidence behind the article)
  <slug>: the series number, then lowercase words joined by dashes (e.g. 078-topology-aware-routing)
  then: npm run build:draft, npm run capture -- <slug>, npm run capture -- <slug> --driver lab, npm run build
  see docs/authoring.md`;
if (args.includes('--help') || args.includes('-h')) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const option = args.find((a) => a.startsWith('-'));
if (option !== undefined) {
  process.stderr.write(`new: unknown option ${JSON.stringify(option)}; ${USAGE.split('\n')[0]}\n`);
  process.exit(2);
}
if (args.length > 1) {
  process.stderr.write(`new: expected one slug, got ${args.length} arguments\n`);
  process.exit(2);
}
/** The series numbers the articles' front matter holds in the scaffold's series: number -> the article. */
function seriesTaken(): Map<number, string> {
  const taken = new Map<number, string>();
  const articles = join(root, 'content/articles');
  for (const name of readdirSync(articles))
    for (const lang of ['zh', 'en']) {
      let data: unknown;
      try {
        const text = readFileSync(join(articles, name, `${lang}.mdx`), 'utf8');
        data = load(/^---\r?\n([\s\S]*?)\r?\n---/.exec(text)?.[1] ?? '');
      } catch {
        continue; // No such file, or front matter the build will name: no number taken here.
      }
      const series = (data as { series?: { name?: unknown; number?: unknown } } | null)?.series;
      if (series?.name === SCAFFOLD_SERIES && typeof series.number === 'number' && !taken.has(series.number)) taken.set(series.number, name);
    }
  return taken;
}

const slug = args[0];
const problem = slugProblem(slug);
if (problem) {
  process.stderr.write(`new: ${problem}\n`);
  process.exit(2);
}
const dir = join(root, 'content/articles', slug!);
// A link that leads nowhere is no free slug either: the files would be written wherever it points.
const folderProblem = articleFolderProblem(root, slug!);
if (folderProblem || articleEntry(root, slug!).kind !== 'absent') {
  process.stderr.write(`new: ${folderProblem ?? `content/articles/${slug} exists already; choose another slug`}\n`);
  process.exit(2);
}
// The rules the build applies to what this writes: the series number is the article's own.
const taken = newArticleProblem(slug, seriesTaken());
if (taken) {
  process.stderr.write(`new: ${taken}\n`);
  process.exit(2);
}
const today = new Date().toISOString().slice(0, 10);
for (const file of scaffoldFiles(slug!, today)) {
  const target = join(dir, file.path);
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, file.content, { flag: 'wx' });
  process.stdout.write(`created content/articles/${slug}/${file.path}\n`);
}
process.stdout.write(
  `\nnext: npm run build:draft (its values show as not yet measured), then npm run capture -- ${slug} (a real kind cluster: npm run kind:prepare first), npm run capture -- ${slug} --driver lab (the lab), then npm run build\nsee docs/authoring.md\n`,
);
