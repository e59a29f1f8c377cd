// What the dev server's last evidence check found, shared between the
// integration (which runs the checks) and the pages (which show them). The
// integration and the rendered pages live in one process under `astro dev`.
const KEY = '__shiceDevProblems';

export function devProblems(): readonly string[] {
  return ((globalThis as Record<string, unknown>)[KEY] as string[] | undefined) ?? [];
}

export function setDevProblems(problems: string[]): void {
  (globalThis as Record<string, unknown>)[KEY] = problems;
}
