// A field of parsed JSON or YAML by dotted path ("localEndpoints", "items.0.metadata.name"):
// list items by index. Pure; the error says what was looked for and where it stopped.
import { ExtractError } from '../errors.ts';

export function fieldAt(data: unknown, path: string, where: string): unknown {
  let current = data;
  for (const key of path.split('.')) {
    if (current === null || typeof current !== 'object' || !(key in current))
      throw new ExtractError(`looked for "${path}" in ${where}, but it has no "${key}"`);
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}
