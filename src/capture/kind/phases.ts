// The parts of a kind capture as its progress lines mark them, in one place:
// the driver and the shared session print these words, the bench reads the
// times the lines arrived at back into parts.

/** The first words of the progress line that opens each part (after the `· ` of a phase line). */
export const KIND_MARKS = {
  create: 'creating kind cluster',
  standIn: 'waiting for every node to be given its podCIDR',
  podCidrs: 'every node has its podCIDR',
  apply: 'waiting for the default ServiceAccount',
  nodesReady: 'waiting for the nodes to be Ready',
  podsReady: 'waiting for pod ',
  // The runner's line that opens the steps (runner.ts, stepsPhase; a driver does not import the runner above it).
  steps: "running the experiment's ",
  down: 'taking the kind environment down',
} as const;

export interface TimedLine {
  /** Milliseconds since the capture process started. */
  atMs: number;
  text: string;
}

export interface KindParts {
  /** Process start to `kind create`: Node, preflight, the engine and image checks. */
  preflightMs: number;
  /** `kind create cluster` (the nodes' containers, kubeadm init and join). */
  clusterMs: number;
  /**
   * Until the controller-manager has given every node its podCIDR: the cluster's own progress, which
   * kindnetd waits for too (absent with kind's official image, and in captures older than the mark).
   */
  podCidrsMs: number | null;
  /** The kindnetd stand-in's writes and the substitute images' check once the podCIDRs are there (absent with kind's official image). */
  standInMs: number | null;
  /** Manifests applied (after the default ServiceAccount) until the nodes are Ready. */
  nodesReadyMs: number;
  /** The nodes Ready until the first step: pods Ready, the topology read, kube-proxy synced. */
  podsReadyMs: number;
  /** First step to the teardown's start. */
  stepsMs: number;
  /** Teardown's start to the process's exit. */
  teardownMs: number;
}

const at = (lines: readonly TimedLine[], prefix: string): number | null => {
  const line = lines.find((l) => l.text.replace(/^· /, '').startsWith(prefix));
  return line ? line.atMs : null;
};

/** The parts of one capture from its timed progress lines; null when a mark is missing (another driver, a failed run). */
export function kindParts(lines: readonly TimedLine[], exitMs: number): KindParts | null {
  const create = at(lines, KIND_MARKS.create);
  const standIn = at(lines, KIND_MARKS.standIn);
  const podCidrs = standIn === null ? null : at(lines, KIND_MARKS.podCidrs);
  const apply = at(lines, KIND_MARKS.apply);
  const nodes = at(lines, KIND_MARKS.nodesReady);
  const pods = at(lines, KIND_MARKS.podsReady);
  // The line that opens the steps; a capture older than it marked them only by the first step's end.
  const firstStep = at(lines, KIND_MARKS.steps) ?? lines.find((l) => /^\[\s*1\/\d+\]/.test(l.text))?.atMs ?? null;
  const down = at(lines, KIND_MARKS.down);
  if (create === null || apply === null || nodes === null || pods === null || firstStep === null || down === null) return null;
  return {
    preflightMs: create,
    clusterMs: (standIn ?? apply) - create,
    podCidrsMs: standIn === null || podCidrs === null ? null : podCidrs - standIn,
    standInMs: standIn === null ? null : apply - (podCidrs ?? standIn),
    nodesReadyMs: pods - apply,
    podsReadyMs: firstStep - pods,
    stepsMs: down - firstStep,
    teardownMs: exitMs - down,
  };
}
