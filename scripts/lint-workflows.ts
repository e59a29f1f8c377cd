// `npm run lint:workflows [PATH...]` (and npm test's workflows suite): lints
// every GitHub Actions workflow of .github/workflows (or the files and
// folders named) with actionlint, built first from tools/ when missing or
// stale, with shellcheck on the `run:` scripts, and with the project's own
// rules (scripts/lib/workflow-rules.ts: actions pinned by commit SHA, no
// credentials left to steps that do not need them). Prints each finding; exits 1
// on any, and on a lint that could not run in full: no workflow file, no
// actionlint (no Go to build it), no shellcheck. One line says which.
import { spawnSync } from 'node:child_process';
import { accessSync, constants, readdirSync, readFileSync, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { actionlintArgs, formatFinding, judgeLint, workflowFiles, type Listing } from './lib/actionlint.ts';
import { buildActionlint } from './lib/build-actionlint.ts';
import { workflowProblems } from './lib/workflow-rules.ts';

const TAG = 'lint:workflows';

function fail(line: string): never {
  process.stderr.write(`${TAG}: ${line}\n`);
  process.exit(1);
}

const args = process.argv.slice(2);
// Named no path: the project's own .github/workflows, whatever the folder it was started from.
if (args.length === 0) process.chdir(fileURLToPath(new URL('..', import.meta.url)));
const listing: Listing = {
  kind: (path) => {
    try {
      const stat = statSync(path);
      return stat.isDirectory() ? 'dir' : stat.isFile() ? 'file' : null;
    } catch {
      return null;
    }
  },
  entries: (dir) => readdirSync(dir),
};
const listed = workflowFiles(args, listing);
if ('problem' in listed) fail(listed.problem);

// The project's rules first: they need neither Go nor shellcheck.
const ruled = listed.files.flatMap((file) => workflowProblems(file, readFileSync(file, 'utf8')));
for (const line of ruled) process.stdout.write(`${line}\n`);
if (ruled.length) fail(`${ruled.length} problem${ruled.length === 1 ? '' : 's'} with pins or credentials`);

/** The first executable of that name on PATH, or null. */
function onPath(name: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    try {
      accessSync(join(dir, name), constants.X_OK);
      return join(dir, name);
    } catch {
      // Not in this folder.
    }
  }
  return null;
}

// Without shellcheck actionlint skips the `run:` scripts without a word: a lint that checks less than it says did not run.
const shellcheck = onPath('shellcheck');
if (shellcheck === null)
  fail("needs shellcheck on PATH: actionlint lints the workflows' run: scripts with it (apt-get install shellcheck; npm test installs it as root on Debian)");

const built = await buildActionlint(TAG, true);
if ('problem' in built) fail(built.problem);

const run = spawnSync(built.binary, actionlintArgs(shellcheck, listed.files), { encoding: 'utf8' });
if (run.error) fail(`could not run ${built.binary}: ${run.error.message}`);
const verdict = judgeLint({ code: run.status, stdout: run.stdout, stderr: run.stderr });
const what = `${listed.files.length} workflow file${listed.files.length === 1 ? '' : 's'} (${listed.files.join(', ')})`;
if (verdict.ok) {
  process.stdout.write(`${TAG}: ${what}: no problem found (actionlint ${built.version}, shellcheck ${shellcheck})\n`);
} else if ('problem' in verdict) {
  fail(verdict.problem);
} else {
  for (const finding of verdict.findings) process.stdout.write(`${formatFinding(finding)}\n`);
  fail(`${verdict.findings.length} problem${verdict.findings.length === 1 ? '' : 's'} in ${what}`);
}
