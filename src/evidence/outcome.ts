// What a step's client saw, as a class: answered at once, answered after a wait,
// refused, timed out at its own limit, or another exit. A step's duration is
// behaviour only when its class changes; within one class it is timing, which a
// busy machine stretches (a 0.1 s curl through `docker exec` took 1.4 s with
// both cores oversubscribed tenfold). Pure.
import { maxTime } from './extract/curl.ts';

export type Outcome = 'answered at once' | 'answered after a wait' | 'refused' | "timed out at the client's limit" | 'ran' | `exited ${string}`;

/**
 * The least wait that is a wait: TCP's initial retransmission timeout (RFC 6298, 2.1), after which a
 * lost SYN is sent again. A client that names its own limit (curl --max-time) waited when it took at
 * least half of it: a machine's load stretches a request, but not to half of what its client allows.
 */
export const WAIT_SECONDS = 1;

/** curl's exit codes for a connection the peer refused (7) and for its own time limit (28). */
const CURL_REFUSED = 7;
const CURL_TIMED_OUT = 28;
/** timeout(1)'s exit code when it ended the command. */
const TIMEOUT_EXPIRED = 124;

/**
 * Whether a command is one request from a client: curl to one URL. A URL with a glob (`{a,b}`,
 * `[1-300]`) makes many requests, whose total time says nothing of any one.
 */
function singleRequest(command: readonly string[]): boolean {
  if (command[0] !== 'curl') return false;
  const urls = command.filter((arg) => /^[a-z]+:\/\//i.test(arg));
  const globbing = !command.includes('--globoff') && !command.includes('-g');
  return urls.length === 1 && !(globbing && /[{}[\]]/.test(urls[0]!));
}

/** The time a request must take to count as answered after a wait (WAIT_SECONDS). */
export function waitSeconds(command: readonly string[]): number {
  try {
    const limit = Number(maxTime(command));
    return Number.isFinite(limit) && limit > 0 ? Math.max(WAIT_SECONDS, limit / 2) : WAIT_SECONDS;
  } catch {
    return WAIT_SECONDS; // no limit of its own
  }
}

/** The class of what a step's client saw, from its exit code, its duration and its command (when known). */
export function stepOutcome(rc: number, seconds: number, command: readonly string[] | undefined): Outcome {
  const curl = command?.[0] === 'curl';
  if (rc === TIMEOUT_EXPIRED || (curl && rc === CURL_TIMED_OUT)) return "timed out at the client's limit";
  if (curl && rc === CURL_REFUSED) return 'refused';
  if (rc !== 0) return `exited ${rc}`;
  if (command && singleRequest(command)) return seconds < waitSeconds(command) ? 'answered at once' : 'answered after a wait';
  return 'ran';
}
