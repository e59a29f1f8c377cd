// The kind provider's public face: what the capture builds a run with.
export { KindDriver, kindLeftovers, type KindDriverOptions } from './driver.ts';
