// The one line that says why a command the bench ran failed (astro build, the
// lab or kind capture, kind:prepare): a figure's `not measured` reason is one
// line, and the last line of a crash is Node's version, not the error. Pure.

/**
 * The first error Astro logged, without its time and tags ("[ERROR] [build] Caught error
 * rendering /x: Error: ..."), else the first line naming an error ("SyntaxError: ..."), else the
 * last line that is not Node's closing "Node.js v24..." line.
 */
export function failureLine(output: string): string {
  const lines = output
    .replace(/\x1b\[[0-9;]*[A-Za-z]/g, '')
    .split(/\r?\n|\r/)
    .map((l) => l.trim())
    .filter(Boolean);
  const logged = lines.find((l) => l.includes('[ERROR]'));
  if (logged) return logged.slice(logged.indexOf('[ERROR]') + '[ERROR]'.length).replace(/^(\s*\[[\w-]+\])*\s*/, '');
  return lines.find((l) => /^\[?\w*Error\b/.test(l)) ?? lines.findLast((l) => !/^Node\.js v\d/.test(l)) ?? 'no output';
}
