// A kind capture against its floor: the parts of it no capture could do
// without, each measured in the same bench run. Pure: the sum and the ratio.

/** What a capture of the article cannot do without, in milliseconds, each measured in the same run. */
export interface KindFloorParts {
  /** `kind create cluster` alone, with the capture's config and image. */
  createMs: number;
  /** `kind delete cluster` alone. */
  deleteMs: number;
  /**
   * Inside the capture: the nodes given their podCIDRs (by the controller-manager, which kindnetd waits for
   * too), the manifests applied until the nodes are Ready, then the pods Ready and kube-proxy synced.
   */
  readyMs: number;
  /** The steps' own durations, as their snapshots recorded them. */
  stepsOwnMs: number;
}

export const KIND_FLOOR_TARGET = 1.15;

/** The capture's wall time over the sum of its floor's parts, and the sum it was divided by. */
export function captureOverFloor(captureMs: number, floor: KindFloorParts): { ratio: number; floorMs: number; note: string } {
  for (const [name, ms] of Object.entries({ captureMs, ...floor }))
    if (!Number.isFinite(ms) || ms < 0) throw new Error(`captureOverFloor: ${name} is ${ms}; expected a duration in milliseconds`);
  const floorMs = floor.createMs + floor.deleteMs + floor.readyMs + floor.stepsOwnMs;
  if (floorMs === 0) throw new Error('captureOverFloor: the floor is 0 ms; nothing was measured');
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  return {
    ratio: captureMs / floorMs,
    floorMs,
    note: `${s(captureMs)} over ${s(floorMs)} = create ${s(floor.createMs)} + delete ${s(floor.deleteMs)} + podCIDRs given, nodes and pods Ready, kube-proxy synced ${s(floor.readyMs)} + steps' own time ${s(floor.stepsOwnMs)}`,
  };
}
