// A cluster's node containers as docker lists them, and the capture's ownership
// marker for it: what both the lifecycle and the teardown decide by.
import { DriverError, type ProviderContext } from '../provider/node-provider.ts';
import * as cmd from './commands.ts';
import { readMarker, type ContainerRef, type OwnerMarker } from './ownership.ts';
import { parseContainerList } from './tool-output.ts';
import type { KindTools } from './tools.ts';

/** The capture's marker for `cluster`, or null; a marker that does not read is a DriverError. */
export async function markerOf(stateDir: string, cluster: string): Promise<OwnerMarker | null> {
  try {
    return await readMarker(stateDir, cluster);
  } catch (error) {
    throw new DriverError((error as Error).message);
  }
}

/** The containers docker lists with kind's label for `cluster`. */
export async function liveContainers(tools: KindTools, cluster: string, ctx?: ProviderContext): Promise<ContainerRef[]> {
  const run = await tools.run(cmd.dockerListClusterContainers(cluster), { what: `list the containers of kind cluster "${cluster}"`, ...(ctx ? { ctx } : {}) });
  try {
    return parseContainerList(run.stdout);
  } catch (error) {
    throw new DriverError((error as Error).message);
  }
}
