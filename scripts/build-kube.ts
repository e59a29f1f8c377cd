// `npm run lab:build [-- --k8s v1.34[,v1.35]|all]`: builds the real Kubernetes
// components the lab runs and kind's node image carries (kube/, one multi-call
// binary from k8s.io/kubernetes and etcd's server module) for each release
// asked (the headline's when none is), each into a folder of its own in the
// machine cache, ~/.cache/shice/kube/<release>/bin, with a link per official
// name (src/capture/machine/kube-build.ts, which a capture runs too for a release it
// needs). Skips a release whose binary on disk was built from the same module
// files by the same Go. Prints progress: Go's own list of packages as it
// compiles them (src/capture/machine/go-build.ts, shared with the tools' build).
import { parseCommandLine, releasesAsked, UsageError } from '../src/capture/session/cli-args.ts';
import { HEADLINE_RELEASE, KUBE_MINORS, type KubeRelease } from '../src/experiment/kubernetes.ts';
import { goVersion } from '../src/capture/machine/go-build.ts';
import { buildKube } from '../src/capture/machine/kube-build.ts';

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

const { releases, quiet } = commandLine(process.argv.slice(2));
const found = goVersion();
if ('problem' in found) fail(`needs Go (go1.26 or newer) on PATH to build Kubernetes from the official modules: ${found.problem}`, 2);
const say = (line: string) => process.stdout.write(`${line}\n`);
for (const release of releases) {
  const problem = await buildKube(release, found.version, { tag: 'lab:build', quiet, say });
  if (problem !== null) fail(problem);
}
