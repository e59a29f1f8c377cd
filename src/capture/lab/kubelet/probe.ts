// The node agent's readiness probe, as kubelet's prober worker runs it
// (pkg/kubelet/prober/worker.go): a tick every periodSeconds, no probe while
// the container is younger than initialDelaySeconds, Ready only after
// successThreshold successes in a row and not Ready after failureThreshold
// failures in a row, not Ready until then. The API server has already filled
// in the defaults (SetDefaults_Probe); kubelet's are used when a field is absent.
import type { Clock } from './clock.ts';
import type { Json } from './objects.ts';

/** SetDefaults_Probe's values, kubelet's when a pod spec does not say. */
export const KUBELET_PROBE_DEFAULTS = { initialDelaySeconds: 0, periodSeconds: 10, timeoutSeconds: 1, successThreshold: 1, failureThreshold: 3 } as const;

export interface ReadinessProbe {
  path: string;
  port: number;
  initialDelaySeconds: number;
  periodSeconds: number;
  timeoutSeconds: number;
  successThreshold: number;
  failureThreshold: number;
}

/**
 * The readiness probe of a container's spec, or null when it has none (then a
 * running container is Ready, as with kubelet). Only httpGet probes are run.
 */
export function readinessProbeOf(container: Json, where: string): ReadinessProbe | null {
  const probe = container.readinessProbe as Json | undefined;
  if (probe === undefined || probe === null) return null;
  const httpGet = probe.httpGet as { path?: unknown; port?: unknown } | undefined;
  if (httpGet === undefined)
    throw new Error(`${where}: field readinessProbe: expected an httpGet probe (the lab runs no other kind), got ${Object.keys(probe).join(', ')}`);
  const number = (field: keyof typeof KUBELET_PROBE_DEFAULTS): number => {
    const value = probe[field];
    if (value === undefined || value === null || value === 0) return KUBELET_PROBE_DEFAULTS[field];
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0)
      throw new Error(`${where}: field readinessProbe.${field}: expected a whole number of seconds or times, got ${JSON.stringify(value)}`);
    return value;
  };
  return {
    path: typeof httpGet.path === 'string' && httpGet.path !== '' ? httpGet.path : '/',
    port: probePort(httpGet.port, container, where),
    initialDelaySeconds: number('initialDelaySeconds'),
    periodSeconds: number('periodSeconds'),
    timeoutSeconds: number('timeoutSeconds'),
    successThreshold: number('successThreshold'),
    failureThreshold: number('failureThreshold'),
  };
}

/** httpGet.port: a number, or the name of one of the container's ports. */
function probePort(port: unknown, container: Json, where: string): number {
  if (typeof port === 'number' && Number.isInteger(port) && port > 0 && port < 65536) return port;
  if (typeof port === 'string') {
    const named = ((container.ports ?? []) as { name?: string; containerPort?: number }[]).find((p) => p.name === port)?.containerPort;
    if (typeof named === 'number') return named;
    if (/^\d+$/.test(port)) return Number(port);
  }
  throw new Error(`${where}: field readinessProbe.httpGet.port: expected a port number or the name of a container port, got ${JSON.stringify(port)}`);
}

/** The prober's memory between ticks: the last result, how many times in a row, and what it concluded. */
export interface ProbeCount {
  last: boolean | null;
  run: number;
  ready: boolean;
}

/** Readiness starts as Failure (worker.initialValue for readiness). */
export const NOT_YET_PROBED: ProbeCount = { last: null, run: 0, ready: false };

/** One probe result applied as kubelet applies it: readiness changes only once a threshold is met. */
export function recordProbe(count: ProbeCount, ok: boolean, probe: Pick<ReadinessProbe, 'successThreshold' | 'failureThreshold'>): ProbeCount {
  const run = count.last === ok ? count.run + 1 : 1;
  const threshold = ok ? probe.successThreshold : probe.failureThreshold;
  return { last: ok, run, ready: run >= threshold ? ok : count.ready };
}

/** Whether a tick at `now` probes: kubelet skips while the container is younger than initialDelaySeconds (whole seconds). */
export function probeDue(startedAt: Date, now: Date, probe: Pick<ReadinessProbe, 'initialDelaySeconds'>): boolean {
  return Math.trunc((now.getTime() - startedAt.getTime()) / 1000) >= probe.initialDelaySeconds;
}

/**
 * Runs one container's readiness probe on the clock's ticks. Like Go's ticker,
 * a tick that comes while a probe is still out is dropped. The first tick is one
 * period after the container started: kubelet's ticker starts with its worker,
 * before the container exists, so its phase is kubelet's; this one is the lab's.
 */
export class ReadinessProber {
  private count: ProbeCount = NOT_YET_PROBED;
  private busy = false;
  private stopTicks: (() => void) | null = null;
  private readonly probe: ReadinessProbe;
  private readonly startedAt: Date;
  private readonly clock: Clock;
  private readonly check: (probe: ReadinessProbe) => Promise<boolean>;
  private readonly onChange: (ready: boolean) => Promise<void>;

  constructor(options: {
    probe: ReadinessProbe;
    startedAt: Date;
    clock: Clock;
    check: (probe: ReadinessProbe) => Promise<boolean>;
    onChange: (ready: boolean) => Promise<void>;
  }) {
    this.probe = options.probe;
    this.startedAt = options.startedAt;
    this.clock = options.clock;
    this.check = options.check;
    this.onChange = options.onChange;
  }

  start(): void {
    this.stopTicks ??= this.clock.every(this.probe.periodSeconds * 1000, () => void this.tick());
  }

  stop(): void {
    this.stopTicks?.();
    this.stopTicks = null;
  }

  get ready(): boolean {
    return this.count.ready;
  }

  /** One tick; resolves once its probe (if any) and the change it caused are reported. */
  async tick(): Promise<void> {
    if (this.busy || this.stopTicks === null || !probeDue(this.startedAt, this.clock.now(), this.probe)) return;
    this.busy = true;
    try {
      const ok = await this.check(this.probe);
      if (this.stopTicks === null) return;
      const before = this.count.ready;
      this.count = recordProbe(this.count, ok, this.probe);
      if (this.count.ready !== before) await this.onChange(this.count.ready);
    } finally {
      this.busy = false;
    }
  }
}
