// What a step that sends many requests printed: one line per answer,
// "<who answered> <HTTP status> <address asked>" (curl's --write-out after the
// body), and what those lines add up to. Pure.
import { ExtractError, describeValue } from '../errors.ts';

export interface Answer {
  /** The body: who answered (a pod's name); empty when nothing came back. */
  who: string;
  /** curl's %{http_code}: "000" when the request failed. */
  status: string;
  /** curl's %{remote_ip}: the address the request went to; empty when it failed before connecting. */
  via: string;
}

const LINE = /^(\S*) (\d{3}) (\S*)$/;

/** Every answer, in order; a line of another shape is an error naming its number. */
export function parseAnswers(stdout: string): Answer[] {
  const lines = stdout.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines.map((line, i) => {
    const m = LINE.exec(line);
    if (!m) throw new ExtractError(`stdout line ${i + 1}: expected "<name> <HTTP status> <address>", got ${describeValue(line)}`);
    return { who: m[1]!, status: m[2]!, via: m[3]! };
  });
}

/** How many answers have `key` equal to `value`. */
export function countWhere(answers: readonly Answer[], key: keyof Answer, value: string): number {
  return answers.filter((a) => a[key] === value).length;
}

/** A share of a total as a page shows it: a percentage with one decimal; raw, the exact fraction. */
export function share(count: number, total: number): { value: string; raw: string } {
  if (total <= 0) throw new ExtractError(`a share of ${count} needs a total above 0, got ${total}`);
  return { value: `${((100 * count) / total).toFixed(1)}%`, raw: String(count / total) };
}

/**
 * What a count of independent draws should be and how far it may stray: n draws,
 * each landing with probability p, give a binomial count with mean n·p and
 * standard deviation √(n·p·(1−p)); `bound` is k standard deviations, rounded up.
 * With p = 1 (every draw lands) the bound is 0: the count must be n exactly.
 */
export function binomialExpectation(n: number, p: number, k: number): { expected: number; sd: number; bound: number } {
  if (!(n >= 0) || !(p >= 0 && p <= 1) || !(k > 0)) throw new ExtractError(`binomial expectation: expected n ≥ 0, 0 ≤ p ≤ 1, k > 0, got n=${n} p=${p} k=${k}`);
  const sd = Math.sqrt(n * p * (1 - p));
  return { expected: n * p, sd, bound: Math.max(0, Math.ceil(k * sd - 1e-9)) };
}
