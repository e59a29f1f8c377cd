// Parsers for what kind, kubectl and docker print. Pure: each takes the text a
// tool printed and says which command it came from when the text is not as expected.
import type { ContainerRef } from './ownership.ts';
import { parseJson, stringAt, ToolOutputError } from '../kubectl/api-output.ts';
import { firstLine } from '../machine/process.ts';

export { parseKubectlVersion, parseLocalEndpoints, ToolOutputError } from '../kubectl/api-output.ts';
export type { KubectlVersions } from '../kubectl/api-output.ts';

/** `kind version` prints e.g. `kind v0.27.0 go1.23.4 linux/amd64`. */
export function parseKindVersion(stdout: string): string {
  const match = /^kind (v\d+\.\d+\.\d+\S*)/m.exec(stdout.trim());
  if (!match) throw new ToolOutputError(`kind version: expected "kind vX.Y.Z ...", got ${JSON.stringify(stdout.trim())}`);
  return match[1]!;
}

/** `crictl inspecti --output json IMAGE`: the image's id (its config's digest, the same as docker's image id). */
export function parseCrictlImageId(stdout: string): string {
  const source = 'crictl inspecti --output json';
  const id = stringAt(parseJson(stdout, source), ['status', 'id'], source);
  if (!/^sha256:[0-9a-f]{64}$/.test(id)) throw new ToolOutputError(`${source}: field status.id: expected sha256:<64 hex digits>, got ${JSON.stringify(id)}`);
  return id;
}

/** `kind get clusters`: one name per line; "No kind clusters found." goes to stderr. */
export function parseKindClusters(stdout: string): string[] {
  return stdout
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && l !== 'No kind clusters found.');
}

/** `docker ps --no-trunc --format '{{.ID}}\t{{.Names}}'`. */
export function parseContainerList(stdout: string): ContainerRef[] {
  return stdout
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((line) => {
      const [id, name, ...rest] = line.trim().split('\t');
      if (!id || !name || rest.length > 0 || !/^[0-9a-f]{12,64}$/.test(id)) {
        throw new ToolOutputError(`docker ps: expected "<container id>\\t<name>" per line, got ${JSON.stringify(line)}`);
      }
      return { id, name };
    });
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

/** Docker's own failures (as opposed to the command inside the node failing). */
export function isDockerFailure(stderr: string): boolean {
  return /^(Error response from daemon:|Cannot connect to the Docker daemon|OCI runtime exec failed|Error: No such container)/m.test(stderr);
}

/** `kubelet --version` inside a node: "Kubernetes v1.37.2" -> "v1.37.2". */
export function parseKubeletVersion(stdout: string): string {
  const m = /^Kubernetes (v\d+\.\d+\.\d+\S*)$/m.exec(stdout.trim());
  if (!m) throw new ToolOutputError(`kubelet --version: expected "Kubernetes vX.Y.Z", got ${JSON.stringify(firstLine(stdout))}`);
  return m[1]!;
}

/** `containerd --version`: "containerd <module> <version> <revision>" -> "<version> <revision>". */
export function parseContainerdVersion(stdout: string): string {
  const m = /^containerd \S+ (\S+(?: \S+)?)$/m.exec(stdout.trim());
  if (!m) throw new ToolOutputError(`containerd --version: expected "containerd <module> <version> <revision>", got ${JSON.stringify(firstLine(stdout))}`);
  return m[1]!;
}

/** `runc --version`'s first line: "runc version 1.1.5+ds1" -> "1.1.5+ds1". */
export function parseRuncVersion(stdout: string): string {
  const m = /^runc version (\S+)$/m.exec(stdout);
  if (!m) throw new ToolOutputError(`runc --version: expected "runc version X", got ${JSON.stringify(firstLine(stdout))}`);
  return m[1]!;
}

/** One node container's state as commands.ts dockerContainerStates asks `docker container inspect` for it. */
export interface ContainerState {
  name: string;
  running: boolean;
  startedAt: string;
  /** Its IPv4 address on its (first) docker network; null when it has none (stopped) or docker did not say. */
  address: string | null;
}

export function parseContainerStates(stdout: string): ContainerState[] {
  return stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      // A network the container is not attached to (a stopped one) prints an empty address.
      const m = /^\/?(\S+) (true|false) (\S+)((?: \S*)*)$/.exec(line.trim());
      if (!m) {
        throw new ToolOutputError(
          `docker container inspect: expected "<name> <running> <startedAt>" and its addresses, got ${JSON.stringify(line.slice(0, 80))}`,
        );
      }
      const address = m[4]!.split(' ').find((a) => /^[0-9a-f.:]+$/i.test(a)) ?? null;
      return { name: m[1]!, running: m[2] === 'true', startedAt: m[3]!, address };
    });
}

/** Each container's init pid as commands.ts dockerContainerPids asks for it, by name; a stopped one (pid 0) has none. */
export function parseContainerPids(stdout: string): Map<string, string> {
  const pids = new Map<string, string>();
  for (const line of stdout.split('\n').filter((l) => l.trim() !== '')) {
    const m = /^\/?(\S+) (\d+)$/.exec(line.trim());
    if (!m) throw new ToolOutputError(`docker container inspect: expected "<name> <pid>", got ${JSON.stringify(line.slice(0, 80))}`);
    if (m[2] !== '0') pids.set(m[1]!, m[2]!);
  }
  return pids;
}

/** What changed between two readings of the node containers, one phrase each (empty: nothing). */
export function containerChanges(before: ContainerState[], after: ContainerState[]): string[] {
  const changes: string[] = [];
  for (const b of before) {
    const a = after.find((c) => c.name === b.name);
    if (!a) changes.push(`node container ${b.name} is gone`);
    else if (!a.running) changes.push(`node container ${b.name} stopped`);
    else if (a.startedAt !== b.startedAt) changes.push(`node container ${b.name} restarted (at ${a.startedAt})`);
  }
  return changes;
}

/**
 * containerChanges, said as what it means when docker no longer knows a node container: the
 * cluster, or nodes of it, deleted by something other than the capture (`kind delete cluster`
 * from another shell), in one item.
 */
export function nodeProblems(cluster: string, before: ContainerState[], after: ContainerState[]): string[] {
  const changes = containerChanges(before, after);
  const gone = before.filter((b) => !after.some((a) => a.name === b.name));
  if (gone.length === 0) return changes;
  const what = gone.length === before.length ? `kind cluster "${cluster}" was deleted` : `node containers of kind cluster "${cluster}" were removed`;
  return [`${what} by something other than this capture (${changes.join(', ')})`];
}
