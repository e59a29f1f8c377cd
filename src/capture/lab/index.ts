// The lab driver's public face (provider/driver-run.ts's CaptureDriver): one
// run's lab for one experiment, and the cleaner behind `--driver lab --clean`.
import type { CaptureDriver } from '../provider/driver-run.ts';
import { createLabRun } from './lab-run.ts';
import { labLeftovers } from './leftovers.ts';

export const labDriver: CaptureDriver = {
  create: (experiment, run) =>
    createLabRun(experiment, {
      runId: run.runId,
      articleDir: run.articleDir,
      keep: run.keep,
      // --kube-bin, the one flag only the lab takes (experiment/drivers.ts); SHICE_KUBE_BIN when absent.
      kubeBin: typeof run.flags['kube-bin'] === 'string' ? run.flags['kube-bin'] : null,
    }),
  leftovers: labLeftovers,
};

export { createLabRun, type LabRunSettings } from './lab-run.ts';
export { labLeftovers } from './leftovers.ts';
