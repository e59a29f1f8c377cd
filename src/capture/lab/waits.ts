// The bootstrap's waits, each bounded and each failing at once, with the
// component's name and the end of its log, when one of the lab's processes
// exits while it waits (`checkAlive`): the API server's /readyz, a lab
// kubelet's registration, every node Ready.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { runJudged } from '../machine/checked-run.ts';
import { waitUntil } from '../machine/process.ts';
import { DriverError } from '../provider/node-provider.ts';
import { apiserverURL, pkiDir } from './components.ts';
import type { LabLayout, LabNode } from './layout.ts';
import { nodeStateFile } from './names.ts';
import { netnsExec } from './network.ts';
import { PKI_FILES } from './pki.ts';

/** The API server needs several seconds on two cores; the rest follows it. */
const APISERVER_READY_TIMEOUT_MS = 90_000;
const NODES_READY_TIMEOUT_MS = 60_000;
const READY_POLL_MS = 100;
/** curl's own --max-time is 2 s: this bounds the process around it. */
const PROBE_TIMEOUT_MS = 10_000;

export interface WaitContext {
  /** The run folder: the PKI, the nodes' state files. */
  folder: string;
  /** Throws when one of the lab's processes has exited (LabDaemons.checkAlive). */
  checkAlive: () => void;
  /** The end of a component's log, for a wait that ran out. */
  logTail: (label: string) => string;
  signal: AbortSignal;
}

export async function waitApiserverReady(cp: LabNode, wait: WaitContext): Promise<void> {
  const readyz = `${apiserverURL(cp.internalIP)}/readyz`;
  const probe = netnsExec(cp.netns, ['curl', '--silent', '--max-time', '2', '--cacert', join(pkiDir(wait.folder), PKI_FILES.caCert), readyz]);
  const ready = await waitUntil(
    async () => {
      wait.checkAlive();
      const run = await runJudged(probe, { timeoutMs: PROBE_TIMEOUT_MS }, `ask kube-apiserver ${readyz}`, { signal: wait.signal });
      return run.stdout.trim() === 'ok';
    },
    APISERVER_READY_TIMEOUT_MS,
    READY_POLL_MS,
    wait.signal,
  );
  if (!ready) {
    throw new DriverError(
      `lab: kube-apiserver did not answer ${readyz} with ok within ${APISERVER_READY_TIMEOUT_MS / 1000} s: ${wait.logTail('kube-apiserver')}`,
    );
  }
}

export async function waitForFile(file: string, what: string, wait: WaitContext): Promise<void> {
  const there = await waitUntil(
    () => {
      wait.checkAlive();
      return existsSync(file);
    },
    NODES_READY_TIMEOUT_MS,
    READY_POLL_MS,
    wait.signal,
  );
  if (!there) throw new DriverError(`lab: waited ${NODES_READY_TIMEOUT_MS / 1000} s for ${what} (see its log in the run folder)`);
}

/** Each lab kubelet writes its ready file once the API gave its node a podCIDR and the node reported Ready. */
export async function waitNodesReady(layout: LabLayout, wait: WaitContext): Promise<void> {
  const files = layout.nodes.map((n) => nodeStateFile(wait.folder, n.name, 'ready'));
  const ready = await waitUntil(
    () => {
      wait.checkAlive();
      return files.every((f) => existsSync(f));
    },
    NODES_READY_TIMEOUT_MS,
    READY_POLL_MS,
    wait.signal,
  );
  if (!ready) {
    const late = layout.nodes.filter((_, i) => !existsSync(files[i]!)).map((n) => n.name);
    throw new DriverError(
      `lab: nodes ${late.join(', ')} got no podCIDR or did not become Ready within ${NODES_READY_TIMEOUT_MS / 1000} s (see the lab kubelet's log)`,
    );
  }
}
