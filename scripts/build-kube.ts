// `npm run lab:build`: builds the real Kubernetes components the lab runs
// (kube/, one multi-call binary from k8s.io/kubernetes and etcd's server
// module) into the machine cache, ~/.cache/shice/kube/bin, with a link per official name. Skips the
// work when the binary on disk was built from the same module files by the
// same Go. Prints progress: Go's own list of packages as it compiles them
// (scripts/lib/go-build.ts, shared with the tools' build).
import { existsSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import {
  BUILT_KUBE_BIN_DIR,
  buildStamp,
  KUBE_BINARY_NAMES,
  KUBE_MODULE_DIR,
  KUBE_MODULE_FILES,
  KUBERNETES_VERSION,
  versionLdflags,
} from '../src/capture/kube-bin.ts';
import { compiledText, elapsedSince, goBuild, goVersion, stampIsCurrent, writeStamp } from './lib/go-build.ts';

const binary = join(BUILT_KUBE_BIN_DIR, 'kube');
const stampFile = join(BUILT_KUBE_BIN_DIR, '.stamp');
const quiet = process.argv.includes('--quiet-if-current');

function fail(line: string): never {
  process.stderr.write(`lab:build: ${line}\n`);
  process.exit(1);
}

const found = goVersion();
if ('problem' in found) fail(`needs Go (go1.26 or newer) on PATH to build ${KUBERNETES_VERSION} from the official modules: ${found.problem}`);
const go = found.version;
const files = Object.fromEntries(KUBE_MODULE_FILES.map((f) => [f, readFileSync(join(KUBE_MODULE_DIR, f), 'utf8')]));
const stamp = buildStamp(files, go);
const linked = KUBE_BINARY_NAMES.every((name) => existsSync(join(BUILT_KUBE_BIN_DIR, name)));
if (existsSync(binary) && linked && stampIsCurrent(stampFile, stamp)) {
  if (!quiet) process.stdout.write(`lab:build: ${BUILT_KUBE_BIN_DIR} is up to date (Kubernetes ${KUBERNETES_VERSION}, ${go})\n`);
  process.exit(0);
}

const started = performance.now();
process.stdout.write(`lab:build: building Kubernetes ${KUBERNETES_VERSION} (${KUBE_BINARY_NAMES.join(', ')}) with ${go}; a cold build takes minutes\n`);

const built = await goBuild({
  tag: 'lab:build',
  cwd: KUBE_MODULE_DIR,
  // Static, as upstream builds these binaries (hack/lib/golang.sh).
  env: { ...process.env, CGO_ENABLED: '0' },
  flags: ['-trimpath', '-ldflags', versionLdflags(KUBERNETES_VERSION, new Date().toISOString().replace(/\.\d+Z$/, 'Z'))],
  packages: ['.'],
  output: binary,
  started,
});
if ('problem' in built) fail(built.problem);
for (const name of KUBE_BINARY_NAMES) {
  const link = join(BUILT_KUBE_BIN_DIR, name);
  rmSync(link, { force: true });
  symlinkSync('kube', link);
}
writeStamp(stampFile, stamp);
process.stdout.write(`lab:build: ${binary} built in ${elapsedSince(started)} (${compiledText(built.compiled)}), linked as ${KUBE_BINARY_NAMES.join(', ')}\n`);
