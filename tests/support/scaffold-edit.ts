// What an author adds to a scaffolded article.ts next (the modes, the releases): fields of the
// experiment written after its `environments` line, as an author types them. Fails, naming the
// file, when the scaffold no longer has that line, so a test never edits nothing.
import { readFileSync, writeFileSync } from 'node:fs';

const ENVIRONMENTS = "    environments: ['kind', 'lab'],\n";

export function declareInScaffold(file: string, fields: readonly string[]): void {
  const text = readFileSync(file, 'utf8');
  if (!text.includes(ENVIRONMENTS)) throw new Error(`${file}: no "environments: ['kind', 'lab']," line to add ${fields.join(', ')} after`);
  writeFileSync(file, text.replace(ENVIRONMENTS, `${ENVIRONMENTS}${fields.map((f) => `    ${f},\n`).join('')}`));
}
