// A copy of the project for a command that writes the articles' snapshots: its
// scripts, sources and content copied, node_modules linked. The command's root
// is then the copy, so the real content/ is never written.
import { cpSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';

/** Copies what the capture's commands read into `dest/project`; returns that folder. */
export function projectCopy(root: string, dest: string): string {
  const copy = join(dest, 'project');
  for (const entry of ['scripts', 'src', 'content', 'package.json']) cpSync(join(root, entry), join(copy, entry), { recursive: true });
  symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'));
  return copy;
}
