// A curl that sends several requests (a URL glob such as [1-100] or {a,b}, or
// several URLs) sends them one after another from one process, over the
// connection it already has while the server keeps it open; kube-proxy picks a
// backend once per connection, so every request then reaches the pod the first
// one did, whatever the policy. Said before any capture, once per step: the
// author either makes each request a new connection or measures the reuse on
// purpose.
import { symbolicTopologyView } from './symbolic-view.ts';
import type { Experiment } from './types.ts';

/** curl's options that take a value: their value is not a URL. */
const WITH_VALUE = new Set([
  '--max-time',
  '-m',
  '--header',
  '-H',
  '--write-out',
  '-w',
  '--output',
  '-o',
  '--connect-timeout',
  '--data',
  '-d',
  '--resolve',
  '--interface',
]);

/** How many requests a curl argv sends (globs expanded), and whether each goes on a new connection. Pure. */
export function curlRequests(argv: readonly string[]): { requests: 'one' | 'several'; closesEach: boolean } {
  const urls: string[] = [];
  let globbing = true;
  let closesEach = false;
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--globoff' || arg === '-g') globbing = false;
    else if ((arg === '--header' || arg === '-H') && /^connection:\s*close\s*$/i.test(argv[i + 1] ?? '')) closesEach = true;
    if (WITH_VALUE.has(arg)) i++;
    // Another option's value (-X POST, --user a:b) is no URL: only what names a scheme counts.
    else if (/^[a-z][a-z0-9+.-]*:\/\//i.test(arg)) urls.push(arg);
  }
  const globbed = globbing && urls.some((url) => /\[[^\]]*-[^\]]*\]|\{[^}]*,[^}]*\}/.test(url));
  return { requests: urls.length > 1 || globbed ? 'several' : 'one', closesEach };
}

/** One line per step whose curl sends several requests over connections it may reuse. Pure. */
export function connectionReuseWarnings(experiment: Experiment, file: string): string[] {
  return experiment.steps.flatMap((step) => {
    if (step.kind !== 'exec') return [];
    const argv = step.command(symbolicTopologyView);
    if (argv[0] !== 'curl') return [];
    const { requests, closesEach } = curlRequests(argv);
    if (requests === 'one' || closesEach) return [];
    return [
      `${file}: step "${step.id}": curl sends several requests and reuses its connection while the server keeps it open, and kube-proxy picks a backend once per connection: give curlArgv header: 'Connection: close' to make each request a new connection, unless the reuse is what the step measures`,
    ];
  });
}
