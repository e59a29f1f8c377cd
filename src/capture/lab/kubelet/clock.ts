// Time as the lab kubelet's parts see it: injected, so that a unit test can
// move it by hand instead of waiting for it.
export interface Clock {
  now(): Date;
  sleep(ms: number): Promise<void>;
  /** Calls `tick` every `ms` until the returned function is called. */
  every(ms: number, tick: () => void): () => void;
}

export const systemClock: Clock = {
  now: () => new Date(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  every: (ms, tick) => {
    const timer = setInterval(tick, ms);
    return () => clearInterval(timer);
  },
};
