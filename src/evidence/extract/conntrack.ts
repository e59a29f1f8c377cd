// `conntrack -L` lines, e.g.
//   tcp      6 119 TIME_WAIT src=A dst=B sport=P dport=Q src=C dst=D sport=R dport=S [ASSURED] mark=0 use=1
// protocol name and number, seconds left, a state (TCP only), the original
// direction, flags such as [UNREPLIED] (which may stand between the two
// directions), the reply direction, then mark/use/zone and the like.
import { ExtractError, describeValue } from '../errors.ts';

export interface ConntrackTuple {
  src: string;
  dst: string;
  sport?: string;
  dport?: string;
  /** Other per-direction keys (ICMP's type/code/id, packets/bytes with accounting). */
  extra: Record<string, string>;
}

export interface ConntrackEntry {
  line: string;
  protocol: string;
  protocolNumber: number;
  /** Seconds until the entry expires. */
  timeout: number;
  /** TCP's state (TIME_WAIT, ESTABLISHED, ...); undefined for protocols without one. */
  state: string | undefined;
  original: ConntrackTuple;
  reply: ConntrackTuple;
  /** [ASSURED], [UNREPLIED], ... without the brackets. */
  flags: string[];
  mark: string | undefined;
  use: number | undefined;
  /** Keys after the reply direction other than mark and use (zone, secctx, id, ...). */
  extra: Record<string, string>;
}

const TUPLE_KEYS = new Set(['src', 'dst', 'sport', 'dport', 'type', 'code', 'id', 'packets', 'bytes']);

export function parseConntrackLine(line: string): ConntrackEntry {
  const tokens = line.trim().split(/\s+/);
  const fail = (expected: string): never => {
    throw new ExtractError(`conntrack line: expected ${expected}, got ${describeValue(line)}`);
  };
  const [protocol, number, timeout] = tokens;
  if (!protocol || !/^[a-z0-9-]+$/.test(protocol)) return fail('a protocol name first');
  if (!number || !/^\d+$/.test(number)) return fail('a protocol number second');
  if (!timeout || !/^\d+$/.test(timeout)) return fail('the seconds left third');
  let i = 3;
  const state = tokens[i] && /^[A-Z_]+$/.test(tokens[i]!) ? tokens[i++] : undefined;

  const tuples: Array<Record<string, string>> = [];
  const flags: string[] = [];
  const trailing: Record<string, string> = {};
  for (; i < tokens.length; i++) {
    const token = tokens[i]!;
    const flag = /^\[([A-Z_]+)\]$/.exec(token);
    if (flag) {
      flags.push(flag[1]!);
      continue;
    }
    const eq = token.indexOf('=');
    if (eq <= 0) return fail(`key=value or [FLAG] tokens, not ${JSON.stringify(token)}`);
    const key = token.slice(0, eq);
    const value = token.slice(eq + 1);
    if (key === 'src' && tuples.length < 2) tuples.push({});
    const current = tuples[tuples.length - 1];
    if (current && TUPLE_KEYS.has(key) && !(key in current) && Object.keys(trailing).length === 0) current[key] = value;
    else trailing[key] = value;
  }
  if (tuples.length !== 2) return fail('an original and a reply direction (two src=... groups)');
  const toTuple = (t: Record<string, string>, which: string): ConntrackTuple => {
    const { src, dst, sport, dport, ...extra } = t;
    if (!src || !dst) return fail(`src= and dst= in the ${which} direction`);
    return { src, dst, ...(sport === undefined ? {} : { sport }), ...(dport === undefined ? {} : { dport }), extra };
  };
  const { mark, use, ...extra } = trailing;
  return {
    line: line.trim(),
    protocol,
    protocolNumber: Number(number),
    timeout: Number(timeout),
    state,
    original: toTuple(tuples[0]!, 'original'),
    reply: toTuple(tuples[1]!, 'reply'),
    flags,
    mark,
    use: use === undefined ? undefined : Number(use),
    extra,
  };
}

/** Every entry of `conntrack -L`'s stdout, in the order printed. */
export function parseConntrackList(stdout: string): ConntrackEntry[] {
  return stdout
    .split('\n')
    .map((l) => l.replace(/\r$/, ''))
    .filter((l) => l.trim() !== '')
    .map((l, index) => {
      try {
        return parseConntrackLine(l);
      } catch (error) {
        if (error instanceof ExtractError) throw new ExtractError(`conntrack output line ${index + 1}: ${error.message}`);
        throw error;
      }
    });
}

/** The N of stderr's "conntrack v1.4.7 (conntrack-tools): N flow entries have been shown." */
export function flowEntriesShown(stderr: string): number {
  const m = /(\d+) flow entries have been shown\./.exec(stderr);
  if (!m) throw new ExtractError(`looked for "N flow entries have been shown." in stderr, got ${describeValue(stderr)}`);
  return Number(m[1]);
}
