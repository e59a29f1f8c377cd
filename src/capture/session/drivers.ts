// The capture's half of the driver registry: each driver's factory and
// recovery, keyed by the names of experiment/drivers.ts (the type makes the
// two lists one: a driver named there without a factory here does not compile).
// Adding a driver is one folder and one entry in each list.
import type { DriverName } from '../../experiment/drivers.ts';
import type { Experiment } from '../../experiment/types.ts';
import type { CaptureArgs } from './cli-args.ts';
import type { KubeRelease } from '../../experiment/kubernetes.ts';
import type { CaptureDriver, DriverRun } from '../provider/driver-run.ts';
import type { ProviderLeftovers } from '../provider/node-provider.ts';
import { kindDriver } from '../kind/index.ts';
import { labDriver } from '../lab/index.ts';
import { existingDriver } from '../existing/index.ts';

export const CAPTURE_DRIVERS: Readonly<Record<DriverName, CaptureDriver>> = { kind: kindDriver, lab: labDriver, existing: existingDriver };

/** One run's driver for one experiment (a variant already chosen) on one Kubernetes release, as the command line asked. */
export function createDriver(
  args: CaptureArgs,
  experiment: Experiment,
  run: { runId: string; articleDir: string; root: string; kubernetes: KubeRelease },
): DriverRun {
  return CAPTURE_DRIVERS[args.driver].create(experiment, { ...run, keep: args.keep, flags: args.driverFlags });
}

/** What each driver's killed runs may leave, for the capture's recovery and --clean. */
export const PROVIDER_LEFTOVERS: ProviderLeftovers[] = Object.values(CAPTURE_DRIVERS).map((d) => d.leftovers);
