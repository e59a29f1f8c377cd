// `npm run check:imports`: no import cycle, no import against the data flow,
// no relative import of a missing file, over every module of the repository
// (scripts/lib/import-graph.ts says what counts). One line per problem; exit 1 if any.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { checkImports, SOURCE_EXTENSIONS } from './lib/import-graph.ts';

const ROOTS = ['src', 'scripts', 'bench', 'tests', 'content', 'astro.config.mjs', 'playwright.config.ts'];
/** Built, installed or generated: never the project's own modules. */
const SKIPPED = new Set(['node_modules', 'dist', '.astro']);

function sourceFiles(root: string, path: string, into: Map<string, string>): void {
  if (!existsSync(path)) return;
  if (statSync(path).isDirectory()) {
    for (const entry of readdirSync(path)) if (!SKIPPED.has(entry)) sourceFiles(root, join(path, entry), into);
  } else if (SOURCE_EXTENSIONS.some((ext) => path.endsWith(ext))) {
    into.set(relative(root, path).split(sep).join('/'), readFileSync(path, 'utf8'));
  }
}

const root = process.cwd();
const files = new Map<string, string>();
for (const r of ROOTS) sourceFiles(root, join(root, r), files);
const problems = checkImports(files, (path) => existsSync(join(root, path)));
for (const p of problems) console.error(p);
console.log(
  problems.length
    ? `check:imports: ${problems.length} problem(s) in ${files.size} files`
    : `check:imports: ${files.size} files, no cycle, no layer crossed, every relative import found`,
);
process.exitCode = problems.length ? 1 : 0;
