// `npm run lab:build`: builds the real Kubernetes components the lab runs
// (kube/, one multi-call binary from k8s.io/kubernetes and etcd's server
// module) into .shice/kube/bin, with a link per official name. Skips the
// work when the binary on disk was built from the same module files by the
// same Go. Prints progress: Go's own list of packages as it compiles them.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import {
  BUILT_KUBE_BIN_DIR,
  buildStamp,
  KUBE_BINARY_NAMES,
  KUBE_MODULE_DIR,
  KUBE_MODULE_FILES,
  KUBERNETES_VERSION,
  versionLdflags,
} from '../src/capture/lab/kube-bin.ts';

const binary = join(BUILT_KUBE_BIN_DIR, 'kube');
const stampFile = join(BUILT_KUBE_BIN_DIR, '.stamp');
const quiet = process.argv.includes('--quiet-if-current');

function fail(line: string): never {
  process.stderr.write(`lab:build: ${line}\n`);
  process.exit(1);
}

const goVersion = spawnSync('go', ['env', 'GOVERSION'], { encoding: 'utf8' });
if (goVersion.error || goVersion.status !== 0) {
  fail(`needs Go (go1.26 or newer) on PATH to build ${KUBERNETES_VERSION} from the official modules: ${goVersion.error?.message ?? goVersion.stderr.trim()}`);
}
const go = goVersion.stdout.trim();
const files = Object.fromEntries(KUBE_MODULE_FILES.map((f) => [f, readFileSync(join(KUBE_MODULE_DIR, f), 'utf8')]));
const stamp = buildStamp(files, go);
const linked = KUBE_BINARY_NAMES.every((name) => existsSync(join(BUILT_KUBE_BIN_DIR, name)));
if (existsSync(binary) && linked && existsSync(stampFile) && readFileSync(stampFile, 'utf8').trim() === stamp) {
  if (!quiet) process.stdout.write(`lab:build: ${BUILT_KUBE_BIN_DIR} is up to date (Kubernetes ${KUBERNETES_VERSION}, ${go})\n`);
  process.exit(0);
}

const started = performance.now();
const elapsed = () => `${Math.round((performance.now() - started) / 1000)} s`;
process.stdout.write(`lab:build: building Kubernetes ${KUBERNETES_VERSION} (${KUBE_BINARY_NAMES.join(', ')}) with ${go}; a cold build takes minutes\n`);

/** Runs go with progress lines; resolves with its exit code. */
function runGo(args: string[], onLine: (line: string) => void): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn('go', args, {
      cwd: KUBE_MODULE_DIR,
      // Static, as upstream builds these binaries (hack/lib/golang.sh).
      env: { ...process.env, CGO_ENABLED: '0' },
      stdio: ['ignore', 'inherit', 'pipe'],
    });
    createInterface({ input: child.stderr }).on('line', onLine);
    const stop = () => child.kill('SIGTERM');
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    child.on('close', (code, signal) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve(code ?? (signal ? 128 : 1));
    });
  });
}

const errors: string[] = [];
process.stdout.write('lab:build: downloading modules (go mod download)\n');
if ((await runGo(['mod', 'download'], (line) => errors.push(line))) !== 0) fail(`go mod download failed: ${errors.slice(-5).join(' | ')}`);

// `go build -v` names each package as it compiles it: a count every 100 is the progress.
const partial = `${binary}.partial`;
mkdirSync(BUILT_KUBE_BIN_DIR, { recursive: true });
let compiled = 0;
const code = await runGo(
  ['build', '-v', '-trimpath', '-ldflags', versionLdflags(KUBERNETES_VERSION, new Date().toISOString().replace(/\.\d+Z$/, 'Z')), '-o', partial, '.'],
  (line) => {
    if (/^[\w.-]+(\/[\w.~-]+)*$/.test(line)) {
      compiled += 1;
      if (compiled % 100 === 0) process.stdout.write(`lab:build: ${compiled} packages compiled (${elapsed()})\n`);
    } else {
      errors.push(line);
      process.stderr.write(`${line}\n`);
    }
  },
);
if (code !== 0) {
  rmSync(partial, { force: true });
  fail(`go build failed (exit ${code}) after ${elapsed()}`);
}
// Renamed into place only when whole: an interrupted build never leaves a broken binary behind.
renameSync(partial, binary);
for (const name of KUBE_BINARY_NAMES) {
  const link = join(BUILT_KUBE_BIN_DIR, name);
  rmSync(link, { force: true });
  symlinkSync('kube', link);
}
mkdirSync(dirname(stampFile), { recursive: true });
writeFileSync(stampFile, `${stamp}\n`);
process.stdout.write(
  `lab:build: ${binary} built in ${elapsed()} (${compiled === 0 ? "every package from Go's build cache" : `${compiled} packages compiled`}), linked as ${KUBE_BINARY_NAMES.join(', ')}\n`,
);
