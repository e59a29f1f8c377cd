// Which driver a capture uses, built from the command line.
import { join } from 'node:path';
import type { NodeProvider, ProviderLeftovers } from './driver.ts';
import type { CaptureArgs } from './cli-args.ts';
import { KindDriver, kindLeftovers } from './kind/index.ts';
import { LabDriver, labLeftovers } from './lab/index.ts';
import { registryReachable } from './kind/registry.ts';

/** The kind driver's kubeconfig, kind config and ownership marker live here (gitignored). */
export const KIND_STATE_DIR = '.shice/kind';

export function createDriver(args: CaptureArgs, run: { runId: string; articleDir: string; root: string }): NodeProvider {
  if (args.driver === 'lab') return new LabDriver({ runId: run.runId, articleDir: run.articleDir, keep: args.keep, kubeBin: args.kubeBin });
  return new KindDriver({
    runId: run.runId,
    articleDir: run.articleDir,
    keep: args.keep,
    reuse: args.reuse,
    ...(args.image ? { image: args.image } : {}),
    loadImages: args.loadImages,
    stateDir: join(run.root, KIND_STATE_DIR),
    cwd: run.root,
    host: { root: run.root, registryReachable: () => registryReachable() },
  });
}

/** What each provider's killed runs may leave, for the capture's recovery and --clean. */
export const PROVIDER_LEFTOVERS: ProviderLeftovers[] = [labLeftovers, kindLeftovers];
