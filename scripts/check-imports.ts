// `npm run check:imports`: no import cycle, no import against the data flow,
// no relative import of a missing file, no import of a file outside the
// project (links resolved), over every module of the repository and every
// article's MDX (scripts/lib/import-graph.ts says what counts). One line per
// problem; exit 1 if any.
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { checkImports, outsideByPath, SOURCE_EXTENSIONS } from './lib/import-graph.ts';
import { mayImport, projectBounds } from '../src/article/check/bounds.ts';

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
const bounds = projectBounds(root);
/** Where a path an import names leads, links resolved, when that is out of the project (an installed package is not). */
const outside = (path: string): string | null => {
  const full = isAbsolute(path) ? path : join(root, path);
  let real: string;
  try {
    real = realpathSync(full);
  } catch {
    return outsideByPath(path);
  }
  return mayImport(real, bounds) ? null : real;
};
const problems = checkImports(files, (path) => existsSync(join(root, path)), undefined, outside);
for (const p of problems) console.error(p);
console.log(
  problems.length
    ? `check:imports: ${problems.length} problem(s) in ${files.size} files`
    : `check:imports: ${files.size} files, no cycle, no layer crossed, every relative import found, none outside the project`,
);
process.exitCode = problems.length ? 1 : 0;
