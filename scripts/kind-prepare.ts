// `npm run kind:prepare [-- --build-images] [--k8s V,...|all] | -- --stop`: makes the kind driver
// runnable here (see src/capture/kind/prepare.ts); `--stop` stops the Docker
// engine kind:prepare started, and only that one.
import { fileURLToPath } from 'node:url';
import { PrerequisiteError } from '../src/capture/provider/node-provider.ts';
import { stopEngine } from '../src/capture/kind/engine/engine.ts';
import { prepare } from '../src/capture/kind/prepare.ts';
import { parseCommandLine, releasesAsked, UsageError } from '../src/capture/session/cli-args.ts';
import { HEADLINE_RELEASE, KUBE_MINORS, type KubeRelease } from '../src/experiment/kubernetes.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const USAGE = `usage: npm run kind:prepare [-- --build-images] [--k8s V[,V...]|all]   (or -- --stop); V: ${KUBE_MINORS.join(', ')}; default ${HEADLINE_RELEASE.minor}`;
let options: { stop: boolean; buildImages: boolean; releases: KubeRelease[] };
try {
  const { values } = parseCommandLine(process.argv.slice(2), {
    stop: { type: 'boolean', default: false },
    'build-images': { type: 'boolean', default: false },
    // The releases whose node images to build (lab:build's binaries of each first).
    k8s: { type: 'string', multiple: true },
    help: { type: 'boolean', short: 'h', default: false },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  options = { stop: values.stop, buildImages: values['build-images'], releases: releasesAsked(values.k8s ?? []) };
} catch (error) {
  if (!(error instanceof UsageError)) throw error;
  process.stderr.write(`kind:prepare: ${error.message}; ${USAGE}\n`);
  process.exit(2);
}
const { releases } = options;

if (options.stop) {
  for (const line of await stopEngine()) process.stdout.write(`kind:prepare: ${line}\n`);
  process.exit(0);
}

const controller = new AbortController();
let interrupted: NodeJS.Signals | null = null;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    interrupted = signal;
    controller.abort();
  });
}
const started = performance.now();
try {
  const done = await prepare(
    { root, buildImages: options.buildImages, releases },
    { signal: controller.signal, log: (line) => process.stdout.write(`${line}\n`) },
  );
  const seconds = Math.round((performance.now() - started) / 1000);
  process.stdout.write(
    `kind:prepare: ready in ${seconds} s: Docker ${done.engine.serverVersion} (${done.engine.own ? "shice's own engine, stop it with npm run kind:prepare -- --stop" : "the host's engine"})`,
  );
  if (done.engine.record?.adaptation) process.stdout.write('; runtime adapted for a host without CAP_SYS_RESOURCE');
  const built = releases.map((r) => done.images?.nodes[r.release]?.name ?? `none for ${r.release}`);
  process.stdout.write(done.images ? `; node image ${built.join(', ')}\n` : "; kind's official node image (a registry answers)\n");
} catch (error) {
  if (interrupted) {
    process.stderr.write(`kind:prepare: interrupted (${interrupted}); build containers removed, finished images kept\n`);
    process.exit(interrupted === 'SIGINT' ? 130 : 143);
  }
  process.stderr.write(`kind:prepare: ${(error as Error).message}\n`);
  process.exit(error instanceof PrerequisiteError ? 2 : 1);
}
