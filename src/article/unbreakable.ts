// Tokens that must not break across lines in prose: names and flags joined by
// hyphens (s-cluster, --max-time, kube-proxy), which browsers would otherwise split
// after a hyphen. Pure: the components and the MDX rehype step both use it.

/** A run of letters, digits, dots, slashes, colons or equals signs with at least one inner hyphen, or a --flag. */
const TOKEN = /(?:--?)?[\p{L}\p{N}_.:/=]+(?:-+[\p{L}\p{N}_.:/=]+)+|--[\p{L}\p{N}][\p{L}\p{N}_]*/gu;

export interface TextRun {
  text: string;
  /** Keep on one line. */
  whole: boolean;
}

export function unbreakableRuns(text: string): TextRun[] {
  const runs: TextRun[] = [];
  let last = 0;
  for (const match of text.matchAll(TOKEN)) {
    if (match.index > last) runs.push({ text: text.slice(last, match.index), whole: false });
    runs.push({ text: match[0], whole: true });
    last = match.index + match[0].length;
  }
  if (last < text.length) runs.push({ text: text.slice(last), whole: false });
  return runs;
}
