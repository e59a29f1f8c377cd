// What a curl step printed: the backend's answer, curl's own error line, the
// timeout it was given, and how long the step took.
import { ExtractError, describeValue } from '../errors.ts';

const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

export const isIPv4 = (text: string): boolean => IPV4.test(text);

/** The address in the backend's `client=<address>` line (nginx's $remote_addr). */
export function clientAddress(stdout: string): string {
  const lines = stdout.split(/\r?\n/).filter((l) => l.startsWith('client='));
  if (lines.length === 0) {
    throw new ExtractError(`looked for a line "client=<address>" in stdout, got ${describeValue(stdout)}`);
  }
  if (lines.length > 1) throw new ExtractError(`expected one line "client=<address>" in stdout, got ${lines.length}`);
  const address = lines[0]!.slice('client='.length).trim();
  if (!isIPv4(address)) throw new ExtractError(`expected an IPv4 address after "client=", got ${describeValue(address)}`);
  return address;
}

/** The value of curl's `--max-time` (also `--max-time=N`, `-m N`, `-mN`) in an argv. */
export function maxTime(argv: readonly string[]): string {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if ((arg === '--max-time' || arg === '-m') && i + 1 < argv.length) return argv[i + 1]!;
    if (arg.startsWith('--max-time=')) return arg.slice('--max-time='.length);
    if (/^-m\d/.test(arg)) return arg.slice(2);
  }
  throw new ExtractError(`looked for --max-time in the argv, got ${JSON.stringify(argv.join(' '))}`);
}

export interface CurlFailure {
  /** curl's exit code as it printed it, e.g. 28. */
  code: number;
  /** The text after the code: "Connection timed out after 3001 milliseconds". */
  message: string;
  /** The whole line as curl printed it. */
  line: string;
}

/** curl's `curl: (N) message` line in stderr (printed with --show-error). */
export function curlFailure(stderr: string): CurlFailure {
  for (const line of stderr.split(/\r?\n/)) {
    const m = /^curl: \((\d+)\) (.*)$/.exec(line.trim());
    if (m) return { code: Number(m[1]), message: m[2]!, line: line.trim() };
  }
  throw new ExtractError(`looked for a line "curl: (<code>) <message>" in stderr, got ${describeValue(stderr)}`);
}
