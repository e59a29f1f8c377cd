// The tools kind:prepare builds from their Go modules (kind, crictl), each with a
// stamp of its own: module, version, Go and link flags. Not an input of the
// images' stamps (build-kit.ts RECIPE), which say what went into each image.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { judged, runOrThrow } from '../../machine/checked-run.ts';
import { runProcess } from '../../machine/process.ts';
import { DriverError } from '../../provider/node-provider.ts';
import type { BuildContext } from './build-kit.ts';

const MINUTE = 60_000;
/** A build from the module proxy: kind took 2.3 min on a loaded 2-core machine; a cold module cache takes longer. */
const GO_INSTALL_MS = 30 * MINUTE;

/** Builds a Go command from the module proxy into dir, unless the stamp says it is there already. */
export async function goInstall(
  spec: { module: string; version: string; binary: string; dir: string; ldflags?: string },
  ctx: Omit<BuildContext, 'release'>,
): Promise<string> {
  const target = join(spec.dir, spec.binary);
  const stampFile = `${target}.stamp`;
  const go = (await runOrThrow(['go', 'env', 'GOVERSION'], { env: ctx.env, timeoutMs: MINUTE }, 'read the Go version', ctx)).stdout.trim();
  const want = `${spec.module}@${spec.version} ${go} ${spec.ldflags ?? ''}`.trim();
  if (existsSync(target) && existsSync(stampFile) && readFileSync(stampFile, 'utf8').trim() === want) return target;
  mkdirSync(spec.dir, { recursive: true });
  const installing = `go install ${spec.module}@${spec.version}`;
  ctx.log(`kind:prepare: ${installing}`);
  const run = await runProcess(['go', 'install', `${spec.module}@${spec.version}`], {
    env: { ...ctx.env, GOBIN: spec.dir, CGO_ENABLED: '0', GOFLAGS: `-trimpath${spec.ldflags ? ` -ldflags=${spec.ldflags}` : ''}` },
    cwd: spec.dir,
    timeoutMs: GO_INSTALL_MS,
    signal: ctx.signal,
    // go's own words as it prints them, where they always went (what it downloads, and why it failed).
    echo: true,
  });
  judged(run, `build ${spec.module}@${spec.version} (go install)`, GO_INSTALL_MS, false);
  if (run.exitCode !== 0) throw new DriverError(`${installing} failed (exit ${run.exitCode})`);
  writeFileSync(stampFile, `${want}\n`);
  return target;
}
