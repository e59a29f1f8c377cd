// The kind driver's public face: its factory and its recovery, as the capture's
// registry (src/capture/session/drivers.ts) holds them.
import { join } from 'node:path';
import type { CaptureDriver } from '../provider/driver-run.ts';
import { createKindRun } from './kind-run.ts';
import { kindLeftovers } from './leftovers.ts';
import { registryReachable } from './registry.ts';
import { KIND_STATE_DIR } from './settings.ts';

export { createKindRun, type KindRun } from './kind-run.ts';
export { kindLeftovers } from './leftovers.ts';
export { KIND_STATE_DIR, RUN_MARK, kindStatePaths, type KindOptions } from './settings.ts';

export const kindDriver: CaptureDriver = {
  create: (experiment, run) => {
    const image = run.flags.image;
    return createKindRun(experiment, {
      runId: run.runId,
      articleDir: run.articleDir,
      keep: run.keep,
      reuse: run.flags.reuse === true,
      ...(typeof image === 'string' && image ? { image } : {}),
      loadImages: run.flags['load-images'] === true,
      kubernetes: run.kubernetes,
      stateDir: join(run.root, KIND_STATE_DIR),
      cwd: run.root,
      host: { root: run.root, registryReachable: () => registryReachable() },
    });
  },
  leftovers: kindLeftovers,
};
