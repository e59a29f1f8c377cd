// The two ways evidence goes wrong. EvidenceError is what a build prints: one
// line per problem, each naming the file, the field and what was expected.
// ExtractError is an extractor's "not found" before it knows which file it read.
import { isAbsolute, relative } from 'node:path';

export class EvidenceError extends Error {
  override name = 'EvidenceError';
  readonly problems: string[];

  constructor(problems: string | string[]) {
    const list = Array.isArray(problems) ? problems : [problems];
    super(list.join('\n'));
    this.problems = list;
  }
}

/** An extractor could not find what it was asked for; the message says what it looked for and what it saw. */
export class ExtractError extends Error {
  override name = 'ExtractError';
}

/** Paths in messages: relative to the working directory when inside it, so they read like the repo's paths. */
export function displayPath(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
}

/** A value as a message shows it: strings quoted, long text cut, structure named rather than dumped. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
  if (Array.isArray(value)) return `a list of ${value.length}`;
  if (typeof value === 'object') return 'a mapping';
  return String(value);
}
