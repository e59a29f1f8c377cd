// Tokens that must not break across lines in prose: names and flags joined by
// hyphens (s-cluster, --max-time, kube-proxy), which browsers would otherwise split
// after a hyphen. Pure: the components and the MDX rehype step both use it.

/** A run of Latin letters, digits, dots, slashes, colons or equals signs with an inner hyphen, or a --flag. */
export const UNBREAKABLE_TOKEN = /(?:--?)?[A-Za-z0-9_.:/=]+(?:-+[A-Za-z0-9_.:/=]+)+|--[A-Za-z0-9][A-Za-z0-9_]*/g;

/** Longer than this, a path may break after a slash or colon: about the most a phone's line holds beside other words. */
const LONG_PATH_CHARS = 24;

/**
 * A whole token as HTML: kept on one line, except that a long path or image
 * reference (docker.io/shice/nginx-light:bookworm-…) may break after a slash or colon,
 * so that a name longer than a phone's line does not widen the page; a short
 * one (default/s-local) stays whole. `token` is already escaped HTML text.
 */
export function wholeTokenHtml(token: string): string {
  const pieces = token.length > LONG_PATH_CHARS ? token.split(/(?<=[/:])(?=.)/) : [token];
  return pieces.map((piece) => `<span class="nobr">${piece}</span>`).join('<wbr>');
}

export interface TextRun {
  text: string;
  /** Keep on one line. */
  whole: boolean;
}

export function unbreakableRuns(text: string): TextRun[] {
  if (!text.includes('-')) return [{ text, whole: false }];
  const runs: TextRun[] = [];
  let last = 0;
  for (const match of text.matchAll(UNBREAKABLE_TOKEN)) {
    if (match.index > last) runs.push({ text: text.slice(last, match.index), whole: false });
    runs.push({ text: match[0], whole: true });
    last = match.index + match[0].length;
  }
  if (last < text.length) runs.push({ text: text.slice(last), whole: false });
  return runs;
}
