// `npm run capture:matrix -- [slug...] [--variant V,...] [--driver kind|lab]`: the runs a CI
// matrix captures, as one line of JSON on stdout (capture.yml's matrix reads it).
import { fileURLToPath } from 'node:url';
import { ArticleFolderError, listArticleSlugs, loadArticle } from '../src/authoring/load.ts';
import { UsageError } from '../src/capture/session/cli-args.ts';
import { captureMatrix, MATRIX_USAGE, parseMatrixArgs } from '../src/capture/session/matrix.ts';
import { terminalSafe } from '../src/evidence/terminal-text.ts';

const root = fileURLToPath(new URL('..', import.meta.url));

try {
  const args = parseMatrixArgs(process.argv.slice(2));
  if (args.help) {
    process.stdout.write(`${MATRIX_USAGE}\n`);
  } else {
    const articles = await Promise.all((await listArticleSlugs(root)).map(async (slug) => ({ slug, experiment: (await loadArticle(root, slug)).experiment })));
    process.stdout.write(`${JSON.stringify({ include: captureMatrix(articles, args) })}\n`);
  }
} catch (error) {
  process.stderr.write(`capture:matrix: ${terminalSafe((error as Error).message.replaceAll('\n', ' | '))}\n`);
  process.exit(error instanceof UsageError || error instanceof ArticleFolderError ? 2 : 1);
}
