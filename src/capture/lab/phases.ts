// The phases of a lab bring-up as its progress lines name them, in one place:
// the driver prints them, the bench reads them back. What follows `up` (the
// manifests applied, the pods Ready, kube-proxy synced) is the Kubernetes
// platform's, the same on every driver: the bench times it by its lines' arrival.
export const LAB_PHASES = {
  network: 'network and PKI',
  controlPlane: 'control plane: API server ready',
  nodes: 'nodes registered, podCIDRs allocated, Ready',
  up: 'up',
} as const;

export type LabPhase = keyof typeof LAB_PHASES;

/** The progress line of a finished phase: `lab: <phase> in <ms> ms`. */
export function phaseLine(phase: LabPhase, ms: number): string {
  return `lab: ${LAB_PHASES[phase]} in ${Math.round(ms)} ms`;
}

export const TEARDOWN_LINE = /^· lab down: .* in (\d+) ms$/m;

/** Each phase's milliseconds as a capture printed them (progress lines start with `· `); absent ones are left out. */
export function readPhases(output: string): Partial<Record<LabPhase | 'down', number>> {
  const found: Partial<Record<LabPhase | 'down', number>> = {};
  for (const [phase, words] of Object.entries(LAB_PHASES) as [LabPhase, string][]) {
    const escaped = words.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const match = new RegExp(`^· lab: ${escaped} in (\\d+) ms$`, 'm').exec(output);
    if (match) found[phase] = Number(match[1]);
  }
  const down = TEARDOWN_LINE.exec(output);
  if (down) found.down = Number(down[1]);
  return found;
}
