// Parsers for what kind, kubectl and docker print. Pure: each takes the text a
// tool printed and says which command it came from when the text is not as expected.
import { load } from 'js-yaml';
import type { ContainerRef } from './ownership.ts';

export class ToolOutputError extends Error {
  override name = 'ToolOutputError';
}

function parseJson(text: string, source: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ToolOutputError(`${source}: expected JSON, got ${JSON.stringify(text.slice(0, 80))} (${(error as Error).message})`);
  }
}

function stringAt(value: unknown, path: string[], source: string): string {
  let current: unknown = value;
  for (const key of path) current = (current as Record<string, unknown> | null | undefined)?.[key];
  if (typeof current !== 'string' || current === '') {
    throw new ToolOutputError(`${source}: field ${path.join('.')}: expected a non-empty string`);
  }
  return current;
}

/** `kind version` prints e.g. `kind v0.27.0 go1.23.4 linux/amd64`. */
export function parseKindVersion(stdout: string): string {
  const match = /^kind (v\d+\.\d+\.\d+\S*)/m.exec(stdout.trim());
  if (!match) throw new ToolOutputError(`kind version: expected "kind vX.Y.Z ...", got ${JSON.stringify(stdout.trim())}`);
  return match[1]!;
}

/** `kind get clusters`: one name per line; "No kind clusters found." goes to stderr. */
export function parseKindClusters(stdout: string): string[] {
  return stdout.split('\n').map((l) => l.trim()).filter((l) => l !== '' && l !== 'No kind clusters found.');
}

/** `docker ps --no-trunc --format '{{.ID}}\t{{.Names}}'`. */
export function parseContainerList(stdout: string): ContainerRef[] {
  return stdout.split('\n').filter((l) => l.trim() !== '').map((line) => {
    const [id, name, ...rest] = line.trim().split('\t');
    if (!id || !name || rest.length > 0 || !/^[0-9a-f]{12,64}$/.test(id)) {
      throw new ToolOutputError(`docker ps: expected "<container id>\\t<name>" per line, got ${JSON.stringify(line)}`);
    }
    return { id, name };
  });
}

export interface KubectlVersions {
  client: string;
  /** null when kubectl could not reach a server (it still prints the client part). */
  server: string | null;
}

/** `kubectl version -o json`: clientVersion always, serverVersion only with a reachable cluster. */
export function parseKubectlVersion(stdout: string): KubectlVersions {
  const source = 'kubectl version -o json';
  const data = parseJson(stdout, source) as { serverVersion?: unknown };
  const client = stringAt(data, ['clientVersion', 'gitVersion'], source);
  const server = data.serverVersion === undefined ? null : stringAt(data, ['serverVersion', 'gitVersion'], source);
  return { client, server };
}

export interface DockerVersions {
  client: string;
  /** null when the daemon is not reachable (`"Server":null`). */
  server: { version: string; os: string; arch: string; kernel: string } | null;
}

/** `docker version --format '{{json .}}'`. */
export function parseDockerVersion(stdout: string): DockerVersions {
  const source = "docker version --format '{{json .}}'";
  const data = parseJson(stdout, source) as { Server?: unknown };
  const client = stringAt(data, ['Client', 'Version'], source);
  if (data.Server === null || data.Server === undefined) return { client, server: null };
  return {
    client,
    server: {
      version: stringAt(data, ['Server', 'Version'], source),
      os: stringAt(data, ['Server', 'Os'], source),
      arch: stringAt(data, ['Server', 'Arch'], source),
      kernel: stringAt(data, ['Server', 'KernelVersion'], source),
    },
  };
}

/** `iptables --version` inside a node: `iptables v1.8.9 (nf_tables)` or `(legacy)`. */
export function parseIptablesVersion(stdout: string): { version: string; backend: string } {
  const match = /^iptables (v\d+\.\d+\.\d+\S*) \(([a-z_]+)\)/.exec(stdout.trim());
  if (!match) throw new ToolOutputError(`iptables --version: expected "iptables vX.Y.Z (backend)", got ${JSON.stringify(stdout.trim())}`);
  return { version: match[1]!, backend: match[2]! };
}

/** The `mode` of kube-proxy's KubeProxyConfiguration in the kube-system/kube-proxy ConfigMap. */
export function parseKubeProxyMode(stdout: string): string {
  const source = 'kubectl get configmap kube-proxy --namespace kube-system -o json';
  const data = parseJson(stdout, source);
  const conf = stringAt(data, ['data', 'config.conf'], source);
  const parsed = load(conf) as { kind?: unknown; mode?: unknown } | null;
  if (!parsed || parsed.kind !== 'KubeProxyConfiguration') {
    throw new ToolOutputError(`${source}: field data.config.conf: expected a KubeProxyConfiguration`);
  }
  if (parsed.mode === undefined || parsed.mode === null || parsed.mode === '') {
    // kube-proxy's own default on Linux.
    return 'iptables (default)';
  }
  if (typeof parsed.mode !== 'string') throw new ToolOutputError(`${source}: field data.config.conf mode: expected a string`);
  return parsed.mode;
}

/**
 * kube-proxy's health-check body: `"localEndpoints": N` inside a JSON object.
 * Null when the answer is not a health-check body (connection refused, timeout, HTML).
 */
export function parseLocalEndpoints(body: string): number | null {
  const start = body.indexOf('{');
  if (start < 0) return null;
  try {
    const data = JSON.parse(body.slice(start)) as { localEndpoints?: unknown };
    return typeof data.localEndpoints === 'number' && Number.isInteger(data.localEndpoints) ? data.localEndpoints : null;
  } catch {
    return null;
  }
}

/** Docker's own failures (as opposed to the command inside the node failing). */
export function isDockerFailure(stderr: string): boolean {
  return /^(Error response from daemon:|Cannot connect to the Docker daemon|OCI runtime exec failed|Error: No such container)/m.test(stderr);
}

export const firstLine = (text: string): string => text.trim().split('\n')[0] ?? '';
