// An argv as a POSIX shell command a reader can paste: what --dry-run prints and
// what a page shows as a step's command and argv. Pure.

/** The characters no POSIX shell gives a meaning to in a word. */
const SAFE = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** One argument as one shell word: bare when made only of safe characters, else single-quoted (a `'` as `'\''`). */
export function shellWord(arg: string): string {
  return SAFE.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`;
}

/** An argv as a shell command line that runs exactly that argv. */
export function shellCommand(argv: readonly string[]): string {
  return argv.map(shellWord).join(' ');
}
