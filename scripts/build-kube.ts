// `npm run lab:build [-- --k8s v1.34[,v1.35]|all]`: builds the real Kubernetes
// components the lab runs and kind's node image carries (kube/, one multi-call
// binary from k8s.io/kubernetes and etcd's server module) for each release
// asked (the headline's when none is), each into a folder of its own in the
// machine cache, ~/.cache/shice/kube/<release>/bin, with a link per official
// name. Skips a release whose binary on disk was built from the same module
// files by the same Go. Prints progress: Go's own list of packages as it
// compiles them (scripts/lib/go-build.ts, shared with the tools' build).
import { existsSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { parseCommandLine, releasesAsked, UsageError } from '../src/capture/cli-args.ts';
import { builtKubeBinDir, buildStamp, KUBE_BINARY_NAMES, KUBE_MODULE_DIR, moduleFilesOf, versionLdflags } from '../src/capture/kube-bin.ts';
import { HEADLINE_RELEASE, KUBE_MINORS, type KubeRelease } from '../src/experiment/kubernetes.ts';
import { compiledText, elapsedSince, goBuild, goVersion, stampIsCurrent, writeStamp } from './lib/go-build.ts';

const USAGE = `usage: npm run lab:build [-- --k8s V[,V...]|all] [--quiet-if-current]   (V: ${KUBE_MINORS.join(', ')}; default ${HEADLINE_RELEASE.minor})`;

function fail(line: string, code = 1): never {
  process.stderr.write(`lab:build: ${line}\n`);
  process.exit(code);
}

function commandLine(argv: string[]): { releases: KubeRelease[]; quiet: boolean } {
  try {
    const { values } = parseCommandLine(argv, {
      k8s: { type: 'string', multiple: true },
      'quiet-if-current': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    });
    if (values.help) {
      process.stdout.write(`${USAGE}\n`);
      process.exit(0);
    }
    return { releases: releasesAsked(values.k8s ?? []), quiet: values['quiet-if-current'] };
  } catch (error) {
    if (error instanceof UsageError) fail(`${error.message}; ${USAGE}`, 2);
    throw error;
  }
}

async function build(release: KubeRelease, go: string, quiet: boolean): Promise<void> {
  const dir = builtKubeBinDir(release);
  const binary = join(dir, 'kube');
  const stampFile = join(dir, '.stamp');
  const files = Object.fromEntries(moduleFilesOf(release).map((f) => [f, readFileSync(join(KUBE_MODULE_DIR, f), 'utf8')]));
  const stamp = buildStamp(files, go, release);
  const linked = KUBE_BINARY_NAMES.every((name) => existsSync(join(dir, name)));
  if (existsSync(binary) && linked && stampIsCurrent(stampFile, stamp)) {
    if (!quiet) process.stdout.write(`lab:build: ${dir} is up to date (Kubernetes ${release.release}, etcd ${release.etcd}, ${go})\n`);
    return;
  }
  const started = performance.now();
  process.stdout.write(
    `lab:build: building Kubernetes ${release.release} and etcd ${release.etcd} (${KUBE_BINARY_NAMES.join(', ')}) with ${go} from kube/${release.modfile}; a cold build takes minutes\n`,
  );
  const built = await goBuild({
    tag: 'lab:build',
    cwd: KUBE_MODULE_DIR,
    // Static, as upstream builds these binaries (hack/lib/golang.sh).
    env: { ...process.env, CGO_ENABLED: '0' },
    flags: [`-modfile=${release.modfile}`, '-trimpath', '-ldflags', versionLdflags(release.release, new Date().toISOString().replace(/\.\d+Z$/, 'Z'))],
    packages: ['.'],
    output: binary,
    started,
  });
  if ('problem' in built) fail(`Kubernetes ${release.release}: ${built.problem}`);
  for (const name of KUBE_BINARY_NAMES) {
    const link = join(dir, name);
    rmSync(link, { force: true });
    symlinkSync('kube', link);
  }
  writeStamp(stampFile, stamp);
  process.stdout.write(`lab:build: ${binary} built in ${elapsedSince(started)} (${compiledText(built.compiled)}), linked as ${KUBE_BINARY_NAMES.join(', ')}\n`);
}

const { releases, quiet } = commandLine(process.argv.slice(2));
const found = goVersion();
if ('problem' in found) fail(`needs Go (go1.26 or newer) on PATH to build Kubernetes from the official modules: ${found.problem}`, 2);
for (const release of releases) await build(release, found.version, quiet);
