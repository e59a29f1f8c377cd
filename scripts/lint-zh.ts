// `npm run lint:zh [-- --fix]`: the Chinese copywriting check the build runs over
// every article's zh.mdx and evidence.zh.mdx, printed as file:line:column; --fix rewrites the prose
// (never code, tags or bound values) and prints what is left.
import { readFileSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkChineseMdx, fixChineseCopy, mdxProse } from '../src/article/check/zh-copy.ts';
import { ARTICLES, ArticleFolderError, articleFolders } from '../src/authoring/load.ts';

const args = process.argv.slice(2);
const unknown = args.filter((a) => a !== '--fix');
if (unknown.length) {
  process.stderr.write(`lint:zh: unknown argument ${unknown.join(' ')}; usage: npm run lint:zh [-- --fix]\n`);
  process.exit(2);
}
const fix = args.includes('--fix');
let folders: string[];
try {
  folders = articleFolders('.');
} catch (error) {
  if (!(error instanceof ArticleFolderError)) throw error;
  process.stderr.write(`lint:zh: ${error.message.replaceAll('\n', '\nlint:zh: ')}\n`);
  process.exit(2);
}
const files = folders.flatMap((name) => ['zh.mdx', 'evidence.zh.mdx'].map((file) => join(ARTICLES, name, file))).filter((f) => existsSync(f));

let problems = 0;
for (const file of files) {
  let source = readFileSync(file, 'utf8');
  if (fix) {
    // A fix can bring a neighbour into Chinese context ("（" before "...)"): repeat until stable.
    let fixed = source;
    for (let round = 0; round < 3; round++) fixed = fixChineseCopy(fixed, mdxProse(fixed));
    if (fixed !== source) {
      writeFileSync(file, fixed);
      process.stdout.write(`fixed ${file}\n`);
      source = fixed;
    }
  }
  const found = checkChineseMdx(file, source);
  problems += found.length;
  for (const line of found) process.stdout.write(`${line}\n`);
}
process.stdout.write(`${files.length} file(s), ${problems} problem(s)\n`);
process.exit(problems ? 1 : 0);
