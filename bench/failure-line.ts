// The one line that says why a command the bench ran failed (astro build, the
// lab or kind capture, kind:prepare): a figure's `not measured` reason is one
// line, and the last line of a crash is Node's version, not the error. Pure.

/** Astro's sections under an error it logged: what follows them is not the reason. */
const SECTION = /^(Location|Hint|Stack trace):$/;
const STACK_FRAME = /^at\s/;
/** What Vite logs for any failed bundle ("[ERROR] [vite] ✗ Build failed in 988ms"): that it failed, not why. */
const ONLY_FAILED = /^(✗\s*)?build failed( in [\d.]+\s*m?s)?\.?$/i;

/** The reason on the lines after an [ERROR] line that gave none, with the location Astro names under it. */
function reasonBelow(lines: readonly string[], from: number): string | null {
  let reason: string | null = null;
  for (let i = from; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.includes('[ERROR]')) break;
    if (line === 'Location:') {
      const where = lines[i + 1];
      return reason !== null && where !== undefined && !SECTION.test(where) ? `${reason} (${where})` : reason;
    }
    if (reason === null && !SECTION.test(line) && !STACK_FRAME.test(line)) reason = line;
  }
  return reason;
}

/**
 * The first error Astro logged, without its time and tags ("[ERROR] [build] Caught error
 * rendering /x: Error: ..."); where that line says only that the build failed (Vite's
 * "✗ Build failed in 988ms") or nothing at all, the reason on the lines under it and the
 * location Astro names; else the first line naming an error ("SyntaxError: ..."), else the last
 * line that is not Node's closing "Node.js v24..." line. Never empty.
 */
export function failureLine(output: string): string {
  const lines = output
    .replace(/\x1b\[[0-9;]*[A-Za-z]/g, '')
    .split(/\r?\n|\r/)
    .map((l) => l.trim())
    .filter(Boolean);
  const logged = lines.findIndex((l) => l.includes('[ERROR]'));
  if (logged >= 0) {
    const line = lines[logged]!;
    const said = line.slice(line.indexOf('[ERROR]') + '[ERROR]'.length).replace(/^(\s*\[[\w-]+\])*\s*/, '');
    if (said && !ONLY_FAILED.test(said)) return said;
    const below = reasonBelow(lines, logged + 1);
    if (below) return said ? `${said.replace(/^✗\s*/, '')}: ${below}` : below;
    if (said) return said;
  }
  return lines.find((l) => /^\[?\w*Error\b/.test(l)) ?? lines.findLast((l) => !/^Node\.js v\d/.test(l)) ?? 'no output';
}
