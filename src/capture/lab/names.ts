// Names the lab gives to what it creates. Everything starts with LAB_PREFIX so
// that `--clean` can find a lab's leftovers and nothing else.
import { LAB_PREFIX, labNodeNamespace } from '../../experiment/drivers.ts';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export { LAB_PREFIX };
/** Linux limits interface names to 15 characters (IFNAMSIZ - 1). */
export const MAX_INTERFACE_NAME = 15;
/** The bridge standing in for docker's `kind` network, inside the bridge namespace. */
export const BRIDGE_INTERFACE = 'br-kind';
/** Interface name inside node and pod namespaces, as in kind's node containers and pods. */
export const INNER_INTERFACE = 'eth0';

const RUN_ID = /^[0-9A-Za-z-]+$/;

export function assertRunId(runId: string): void {
  if (!RUN_ID.test(runId)) throw new Error(`lab run id: expected letters, digits and dashes, got ${JSON.stringify(runId)}`);
}

/** Namespaces of one run: `shice-lab-<runId>.<role>`; the dot cannot occur in a run id. */
export function runNamespacePrefix(runId: string): string {
  return `${LAB_PREFIX}${runId}.`;
}

export function bridgeNamespace(runId: string): string {
  return `${runNamespacePrefix(runId)}bridge`;
}

export const nodeNamespace = labNodeNamespace;

/** The run id of a lab namespace, or null when the name is not one of the lab's. */
export function runIdOfNamespace(name: string): string | null {
  if (!name.startsWith(LAB_PREFIX)) return null;
  const rest = name.slice(LAB_PREFIX.length);
  const dot = rest.indexOf('.');
  if (dot <= 0) return null;
  const runId = rest.slice(0, dot);
  return RUN_ID.test(runId) ? runId : null;
}

/** The run's folder (configs, logs, health state), under the OS temp folder. */
export function runFolder(runId: string, base: string = tmpdir()): string {
  return join(base, `${LAB_PREFIX}${runId}`);
}

/**
 * A lab kubelet's files in its node's state folder: `registered` once its Node exists, `ready` once
 * it has a podCIDR and reported Ready, `decisions.json` what it decided (kubelet/decisions.ts).
 */
export function nodeStateFile(folder: string, node: string, file: 'registered' | 'ready' | 'decisions.json'): string {
  return join(folder, 'nodes', node, file);
}

/**
 * Node's compile cache for the health-check servers, kept between runs in the
 * project's gitignored state folder: a server whose TypeScript was stripped
 * once starts in about half the CPU time. It holds no state of any run.
 */
export const NODE_COMPILE_CACHE_DIR = fileURLToPath(new URL('../../../.shice/lab/node-compile-cache', import.meta.url));

function shortHash(text: string, length: number): string {
  return createHash('sha256').update(text).digest('hex').slice(0, length);
}

/** Bridge-side end of a node's veth, named like docker's host-side veths. */
export function bridgePortName(node: string): string {
  return `veth${shortHash(`node/${node}`, 7)}`;
}
