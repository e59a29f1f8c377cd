// `npm run kind:prepare [-- --build-images | --stop]`: makes the kind driver
// runnable here (see src/capture/kind/prepare.ts); `--stop` stops the Docker
// engine kind:prepare started, and only that one.
import { fileURLToPath } from 'node:url';
import { PrerequisiteError } from '../src/capture/provider/node-provider.ts';
import { stopEngine } from '../src/capture/kind/engine/engine.ts';
import { prepare } from '../src/capture/kind/prepare.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const known = ['--stop', '--build-images', '--help'];
const unknown = args.filter((a) => !known.includes(a));
if (unknown.length > 0 || args.includes('--help')) {
  const usage = 'usage: npm run kind:prepare [-- --build-images]   (or -- --stop)';
  if (unknown.length > 0) {
    process.stderr.write(`kind:prepare: unknown option ${unknown[0]}; ${usage}\n`);
    process.exit(2);
  }
  process.stdout.write(`${usage}\n`);
  process.exit(0);
}

if (args.includes('--stop')) {
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
    { root, buildImages: args.includes('--build-images') },
    { signal: controller.signal, log: (line) => process.stdout.write(`${line}\n`) },
  );
  const seconds = Math.round((performance.now() - started) / 1000);
  process.stdout.write(
    `kind:prepare: ready in ${seconds} s: Docker ${done.engine.serverVersion} (${done.engine.own ? "shice's own engine, stop it with npm run kind:prepare -- --stop" : "the host's engine"})`,
  );
  if (done.engine.record?.adaptation) process.stdout.write('; runtime adapted for a host without CAP_SYS_RESOURCE');
  process.stdout.write(done.images ? `; node image ${done.images.node.name}\n` : "; kind's official node image (a registry answers)\n");
} catch (error) {
  if (interrupted) {
    process.stderr.write(`kind:prepare: interrupted (${interrupted}); build containers removed, finished images kept\n`);
    process.exit(interrupted === 'SIGINT' ? 130 : 143);
  }
  process.stderr.write(`kind:prepare: ${(error as Error).message}\n`);
  process.exit(error instanceof PrerequisiteError ? 2 : 1);
}
