// Parsers for what kubectl and kube-proxy answer, shared by both drivers. Pure:
// each takes the text a tool printed and says which command it came from when
// the text is not as expected.

export class ToolOutputError extends Error {
  override name = 'ToolOutputError';
}

export function parseJson(text: string, source: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ToolOutputError(`${source}: expected JSON, got ${JSON.stringify(text.slice(0, 80))} (${(error as Error).message})`);
  }
}

export function stringAt(value: unknown, path: string[], source: string): string {
  let current: unknown = value;
  for (const key of path) current = (current as Record<string, unknown> | null | undefined)?.[key];
  if (typeof current !== 'string' || current === '') {
    throw new ToolOutputError(`${source}: field ${path.join('.')}: expected a non-empty string`);
  }
  return current;
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

/** kube-proxy's answer on its metrics server's /proxyMode: the mode it runs in, as one word. */
export function parseProxyMode(stdout: string, source: string): string {
  const mode = stdout.trim();
  if (!/^[a-z]+$/.test(mode))
    throw new ToolOutputError(`${source}: expected kube-proxy's mode (iptables, nftables, ipvs), got ${JSON.stringify(mode.slice(0, 60))}`);
  return mode;
}

/** One value when every node reported the same, else `node=value` for each, as run.yaml records a per-node reading. */
export function agreedValue(perNode: readonly (readonly [string, string])[]): string {
  const distinct = new Set(perNode.map(([, v]) => v));
  return distinct.size === 1 ? perNode[0]![1] : perNode.map(([node, v]) => `${node}=${v}`).join(' ');
}

/**
 * The line in which the API server refused to create an object, from kubectl's stderr (create's
 * "Error from server (…): …", apply's "The pods "x" is invalid: : …"): Pod Security ("… is forbidden:
 * violates PodSecurity …"), RBAC ("… is forbidden: User … cannot create …"), a ValidatingAdmissionPolicy
 * or a webhook ("… denied request", "… denied the request"); null for any other failure, a manifest the
 * schema rejects included. Pure.
 */
export function refusalLine(stderr: string): string | null {
  return stderr.split('\n').find((line) => / is forbidden: | denied (the )?request\b/.test(line)) ?? null;
}
