// `npm test`: every suite, in the order that fails fastest, each named as it
// runs, then one summary. The browser suite runs against a fresh build.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = (name: string) => join(root, 'node_modules/.bin', name);
const node = process.execPath;

interface Suite { name: string; argv: string[] }

const suites: Suite[] = [
  { name: 'unit (node:test)', argv: [node, '--test', '--test-reporter=spec', 'tests/unit/**/*.test.ts'] },
  { name: 'types (astro check)', argv: [node, join(root, 'node_modules/astro/bin/astro.mjs'), 'check'] },
  // The lab runs the real Kubernetes components: built here when missing or stale (a cold build takes minutes).
  { name: 'Kubernetes binaries (npm run lab:build)', argv: [node, join(root, 'scripts/build-kube.ts')] },
  { name: 'lab capture on this kernel (node:test)', argv: [node, '--test', '--test-reporter=spec', '--test-concurrency=1', 'tests/lab/**/*.test.ts'] },
  { name: 'faults: kill -9, concurrent captures, hostile targets and output (node:test)', argv: [node, '--test', '--test-reporter=spec', '--test-concurrency=1', 'tests/fault/**/*.test.ts'] },
  { name: 'build (astro build)', argv: [node, join(root, 'node_modules/astro/bin/astro.mjs'), 'build'] },
  { name: 'browser (Playwright, Chromium)', argv: [bin('playwright'), 'test'] },
];

const only = process.argv.slice(2);
const results: { name: string; ok: boolean; seconds: number }[] = [];
for (const suite of suites) {
  if (only.length && !only.some((word) => suite.name.includes(word))) continue;
  process.stdout.write(`\n=== ${suite.name}: ${suite.argv.slice(1).join(' ')}\n`);
  const started = performance.now();
  const run = spawnSync(suite.argv[0]!, suite.argv.slice(1), { cwd: root, stdio: 'inherit', env: process.env });
  const ok = run.status === 0;
  results.push({ name: suite.name, ok, seconds: (performance.now() - started) / 1000 });
  if (!ok) {
    process.stdout.write(`=== ${suite.name} failed (${run.error?.message ?? `exit ${run.status ?? run.signal}`})\n`);
    // The later suites need what failed (a build for the browser): stop here.
    break;
  }
}

process.stdout.write('\n=== summary\n');
for (const r of results) process.stdout.write(`${r.ok ? 'ok  ' : 'FAIL'} ${r.name} (${r.seconds.toFixed(1)} s)\n`);
const failed = results.filter((r) => !r.ok).length;
process.stdout.write(`suites: ${results.length - failed} passed, ${failed} failed\n`);
process.exit(failed ? 1 : 0);
