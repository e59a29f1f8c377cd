// The capture's report as Markdown (a pull request's body): one section per run,
// its lines as they are printed, in a fence no line of theirs can close. Pure.

export interface ReportSection {
  /** e.g. `074-external-traffic-policy (kind, nftables): run 20261204T133528Z-3c68c1` */
  title: string;
  lines: readonly string[];
}

/** A fence longer than any run of backticks in `text` (CommonMark: a fence closes only on one at least as long). */
function fenceFor(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  return '`'.repeat(Math.max(3, longest + 1));
}

/** Markdown of the sections under `heading`; titles are plain text (their Markdown characters escaped). */
export function reportMarkdown(heading: string, intro: readonly string[], sections: readonly ReportSection[]): string {
  const escape = (s: string) => s.replace(/[\\`*_{}[\]<>()#+!|~]/g, (c) => `\\${c}`);
  const parts = [`# ${escape(heading)}`, '', ...intro.map(escape), ''];
  for (const section of sections) {
    const body = section.lines.join('\n');
    const fence = fenceFor(body);
    parts.push(`## ${escape(section.title)}`, '', `${fence}text`, body, fence, '');
  }
  return `${parts.join('\n').trimEnd()}\n`;
}
