// A run id sorts by time and is unique enough to name namespaces and folders:
// 20261202T113005Z-3f9a1c
import { randomBytes } from 'node:crypto';

export function makeRunId(at: Date, random: string = randomBytes(3).toString('hex')): string {
  const stamp = at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}Z$/, 'Z');
  return `${stamp}-${random}`;
}
