// A folder's tree, byte for byte, links included: what the fault, hostile and merge tests compare before and after.
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';

/** Relative path -> sha256 of the content (or `link -> target`, or `dir`), for every entry under `dir`. */
export function treeDigest(dir: string, prefix = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    const rel = prefix ? `${prefix}/${name}` : name;
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) out[rel] = `link -> ${readlinkSync(path)}`;
    else if (stat.isDirectory()) {
      out[rel] = 'dir';
      Object.assign(out, treeDigest(path, rel));
    } else out[rel] = createHash('sha256').update(readFileSync(path)).digest('hex');
  }
  return out;
}
