// The steps experiments are made of, written once: a command on a node, and
// curl as the series runs it. Pure: argv arrays, never shell strings.
import type { ExecStep, PodRef, TopologyView } from './types.ts';

/** A step that runs `command`, an argv, on `node`. */
export function exec<const S extends string>(
  id: S,
  node: string,
  title: string,
  command: (t: TopologyView) => string[],
  options: Omit<ExecStep, 'kind' | 'id' | 'node' | 'title' | 'command'> = {},
): ExecStep & { id: S } {
  return { kind: 'exec', id, node, title, command, ...options };
}

/**
 * A step that runs `command` inside `pod`'s network namespace on `node`, where the manifests place
 * the pod: the node's own program (curl, ip), sending and receiving as the pod does.
 */
export function inPod<const S extends string>(
  id: S,
  pod: PodRef | string,
  node: string,
  title: string,
  command: (t: TopologyView) => string[],
  options: Omit<ExecStep, 'kind' | 'id' | 'node' | 'title' | 'command' | 'pod'> = {},
): ExecStep & { id: S } {
  const ref = typeof pod === 'string' ? { namespace: 'default', name: pod } : pod;
  return { kind: 'exec', id, node, pod: ref, title, command, ...options };
}

/**
 * curl's argv as the series runs it: silent but for errors, with a time limit (`maxTime`, seconds);
 * `include` keeps the status line and headers, `header` adds one, `writeOut` prints after each answer.
 */
export function curlArgv(url: string, options: { maxTime: string; include?: boolean; header?: string; writeOut?: string; rate?: string }): string[] {
  return [
    'curl',
    '--silent',
    '--show-error',
    ...(options.include ? ['--include'] : []),
    '--max-time',
    options.maxTime,
    ...(options.header === undefined ? [] : ['--header', options.header]),
    ...(options.writeOut === undefined ? [] : ['--write-out', options.writeOut]),
    ...(options.rate === undefined ? [] : ['--rate', options.rate]),
    url,
  ];
}

/**
 * `count` requests to `url` from one curl, each on a connection of its own, one answer a line
 * (`<body> <HTTP status> <address asked>`, what answerFacts and answered read). A URL glob alone
 * would reuse one connection, and kube-proxy picks a backend per connection: `Connection: close`
 * makes each request a new one. `rate` spaces them out, as curl's --rate ("20/m": one every 3 s).
 */
export function requestsArgv(url: string, count: number, options: { maxTime: string; rate?: string }): string[] {
  return curlArgv(`${url}?request=[1-${count}]`, { header: 'Connection: close', writeOut: ' %{http_code} %{remote_ip}\\n', ...options });
}
