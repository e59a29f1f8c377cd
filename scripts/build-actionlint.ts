// Builds actionlint (scripts/lib/build-actionlint.ts) into
// the machine cache (~/.cache/shice/tools/bin/actionlint), or says it is up to date; `npm run
// lint:workflows` does the same before it lints. --quiet-if-current says
// nothing when there is nothing to build.
import { buildActionlint } from './lib/build-actionlint.ts';

const built = await buildActionlint('actionlint:build', process.argv.includes('--quiet-if-current'));
if ('problem' in built) {
  process.stderr.write(`actionlint:build: ${built.problem}\n`);
  process.exit(1);
}
