// What an author adds to a scaffolded article.ts next (the modes, the releases): fields of the
// experiment, as an author types them: a field the scaffold already gives (its releases) is
// replaced where it stands, any other is written after the manifests line. Fails, naming the
// file, when the scaffold no longer has that line, so a test never edits nothing.
import { readFileSync, writeFileSync } from 'node:fs';

const MANIFESTS = "    manifests: ['manifests/app.yaml'],\n";

export function declareInScaffold(file: string, fields: readonly string[]): void {
  let text = readFileSync(file, 'utf8');
  if (!text.includes(MANIFESTS)) throw new Error(`${file}: no "manifests: ['manifests/app.yaml']," line to add ${fields.join(', ')} after`);
  for (const field of fields) {
    const given = new RegExp(`^    ${field.split(':')[0]}: .*,\\n`, 'm');
    text = given.test(text) ? text.replace(given, `    ${field},\n`) : text.replace(MANIFESTS, `${MANIFESTS}    ${field},\n`);
  }
  writeFileSync(file, text);
}
