// What the node agent reports as the node's capacity, read from the machine
// as kubelet (through cAdvisor) reads it: the logical CPUs, MemTotal of
// /proc/meminfo, the size of the filesystem that holds the node's state. Every
// lab node shares one machine and says so by reporting all of it, as kind's do.
import { cpus } from 'node:os';
import { readFileSync, statfsSync } from 'node:fs';

/** kubelet's default maxPods (KubeletConfiguration.maxPods): a setting, not a measurement. */
export const KUBELET_DEFAULT_MAX_PODS = 110;

export interface MachineCapacity {
  cpu: number;
  /** MemTotal in KiB, as /proc/meminfo prints it. */
  memoryKiB: number;
  /** The state folder's filesystem, in KiB. */
  ephemeralStorageKiB: number;
}

/** MemTotal from the text of /proc/meminfo ("MemTotal:       24683584 kB"). */
export function memTotalKiB(meminfo: string, where = '/proc/meminfo'): number {
  const match = /^MemTotal:\s+(\d+) kB$/m.exec(meminfo);
  if (match === null) throw new Error(`${where}: field MemTotal: expected "MemTotal: <n> kB"`);
  return Number(match[1]);
}

/** Reads this machine's capacity; `stateDir` stands for kubelet's root directory. */
export function readMachineCapacity(stateDir: string): MachineCapacity {
  const fs = statfsSync(stateDir);
  return {
    cpu: cpus().length,
    memoryKiB: memTotalKiB(readFileSync('/proc/meminfo', 'utf8')),
    ephemeralStorageKiB: Math.floor((fs.blocks * fs.bsize) / 1024),
  };
}

/**
 * The Node's capacity in the API's quantities. Allocatable is the same: the
 * lab reserves nothing for the system and sets no eviction threshold.
 */
export function nodeResources(capacity: MachineCapacity): Record<string, string> {
  return {
    cpu: String(capacity.cpu),
    memory: `${capacity.memoryKiB}Ki`,
    pods: String(KUBELET_DEFAULT_MAX_PODS),
    'ephemeral-storage': `${capacity.ephemeralStorageKiB}Ki`,
  };
}
