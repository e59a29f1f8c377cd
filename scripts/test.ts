// `npm test`: every suite, in the order that fails fastest, each named as it
// runs, then one summary. The browser suite runs against a fresh build.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = (name: string) => join(root, 'node_modules/.bin', name);
const node = process.execPath;

interface Suite { name: string; argv: string[] }

/** node:test with the spec reporter on the terminal and TAP into a file, whose summary tells skipped from passed. */
const nodeTest = (...args: string[]): string[] => [node, '--test', '--test-reporter=spec', '--test-reporter-destination=stdout', ...args];

const suites: Suite[] = [
  { name: 'unit (node:test)', argv: nodeTest('tests/unit/**/*.test.ts') },
  { name: 'types (astro check)', argv: [node, join(root, 'node_modules/astro/bin/astro.mjs'), 'check'] },
  // The lab runs the real Kubernetes components: built here when missing or stale (a cold build takes minutes).
  { name: 'Kubernetes binaries (npm run lab:build)', argv: [node, join(root, 'scripts/build-kube.ts')] },
  { name: 'lab capture on this kernel (node:test)', argv: nodeTest('--test-concurrency=1', 'tests/lab/**/*.test.ts') },
  { name: 'faults: kill -9, concurrent captures, hostile targets and output (node:test)', argv: nodeTest('--test-concurrency=1', 'tests/fault/**/*.test.ts') },
  // A real kind cluster: kind:prepare's engine and images (built without a registry where none answers), then article 074's capture.
  { name: 'kind: article 074 on a real kind cluster (node:test)', argv: nodeTest('--test-concurrency=1', 'tests/kind/**/*.test.ts') },
  { name: 'build (astro build)', argv: [node, join(root, 'node_modules/astro/bin/astro.mjs'), 'build'] },
  { name: 'browser (Playwright, Chromium)', argv: [bin('playwright'), 'test'] },
];

/** TAP's closing counts ("# tests 3", "# skip 3"): a suite whose every test skipped did not run. */
function tapCounts(tap: string): { tests: number; skipped: number } {
  const count = (key: string) => Number(new RegExp(`^# ${key} (\\d+)$`, 'm').exec(tap)?.[1] ?? 0);
  return { tests: count('tests'), skipped: count('skip') };
}

const only = process.argv.slice(2);
const results: { name: string; ok: boolean; seconds: number; note: string }[] = [];
const tapDir = mkdtempSync(join(tmpdir(), 'shice-test-'));
for (const suite of suites) {
  if (only.length && !only.some((word) => suite.name.includes(word))) continue;
  const tapFile = join(tapDir, `${results.length}.tap`);
  const isNodeTest = suite.argv[1] === '--test';
  const argv = isNodeTest ? [...suite.argv.slice(0, 2), '--test-reporter=tap', `--test-reporter-destination=${tapFile}`, ...suite.argv.slice(2)] : suite.argv;
  process.stdout.write(`\n=== ${suite.name}: ${suite.argv.slice(1).join(' ')}\n`);
  const started = performance.now();
  const run = spawnSync(argv[0]!, argv.slice(1), { cwd: root, stdio: 'inherit', env: process.env });
  const ok = run.status === 0;
  let note = '';
  if (isNodeTest) {
    let counts = { tests: 0, skipped: 0 };
    try {
      counts = tapCounts(readFileSync(tapFile, 'utf8'));
    } catch {
      // No TAP written: the suite did not get as far as reporting.
    }
    if (counts.tests > 0 && counts.skipped === counts.tests) note = 'skipped: every test skipped';
    else if (counts.skipped > 0) note = `${counts.skipped} of ${counts.tests} skipped`;
  }
  results.push({ name: suite.name, ok, seconds: (performance.now() - started) / 1000, note });
  if (!ok) {
    process.stdout.write(`=== ${suite.name} failed (${run.error?.message ?? `exit ${run.status ?? run.signal}`})\n`);
    // The later suites need what failed (a build for the browser): stop here.
    break;
  }
}

rmSync(tapDir, { recursive: true, force: true });
process.stdout.write('\n=== summary\n');
const status = (r: (typeof results)[number]) => (!r.ok ? 'FAIL' : r.note.startsWith('skipped') ? 'SKIP' : 'ok  ');
for (const r of results) process.stdout.write(`${status(r)} ${r.name} (${r.seconds.toFixed(1)} s${r.note && !r.note.startsWith('skipped') ? `, ${r.note}` : ''})\n`);
const failed = results.filter((r) => !r.ok).length;
const skipped = results.filter((r) => r.ok && r.note.startsWith('skipped')).length;
process.stdout.write(`suites: ${results.length - failed - skipped} passed, ${skipped} skipped, ${failed} failed\n`);
process.exit(failed ? 1 : 0);
