// The build publishes the checkout and nothing else. public/ is copied into
// dist/ as it is, links followed, and a module an MDX file imports (`?raw`
// above all) lands on the page: a link or an import that reaches out of the
// project would publish a file of the machine that built it. So the build
// refuses, one line per file: a link in public/ that leads out of public/
// (or nowhere), a second name of a file, anything but files, folders and
// links there; and an import, by any module of the project, that resolves
// to a file outside the project and its installed packages (absolute paths,
// `../` escapes, queries, links inside the tree that lead out). Git's own
// folder counts as outside: it may hold a token.
import { lstatSync, readdirSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { isBuiltin } from 'node:module';
import type { AstroIntegration } from 'astro';
import { isInside } from '../../authoring/load.ts';
import { quoted } from '../../evidence/terminal-text.ts';

/** An entry of public/ as found on disk: `path` relative to the project, for messages. */
export type PublicEntry =
  | { path: string; kind: 'folder' }
  | { path: string; kind: 'file'; names: number }
  | { path: string; kind: 'link'; target: string; real: string | null }
  | { path: string; kind: 'other' };

/** The problem with an entry of public/ in one line, or null; `realPublic` is public/ with links resolved. Pure. */
export function publicEntryProblem(entry: PublicEntry, realPublic: string): string | null {
  const expected = 'expected a file of the site itself inside public/ (it is published as it is)';
  switch (entry.kind) {
    case 'folder':
      return null;
    case 'file':
      // A second name cannot say where its first is: it may be any file of the machine.
      return entry.names > 1 ? `${entry.path}: a file with ${entry.names} names (a hard link); ${expected}, with one name` : null;
    case 'link':
      if (entry.real === null) return `${entry.path}: a symbolic link to ${quoted(entry.target)}, which does not exist; ${expected}`;
      if (!isInside(entry.real, realPublic)) {
        const leads = entry.real === entry.target ? '' : ` (it leads to ${quoted(entry.real)})`;
        return `${entry.path}: a symbolic link to ${quoted(entry.target)}${leads}, outside public/; ${expected}`;
      }
      return null;
    case 'other':
      return `${entry.path}: neither a file, a folder nor a link (a device, pipe or socket); ${expected}`;
  }
}

/** Every entry of public/, links not followed (a link to a folder inside public/ is walked where it really is). */
function publicEntries(root: string, dir: string, into: PublicEntry[]): void {
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    const path = relative(root, full);
    const stat = lstatSync(full);
    if (stat.isDirectory()) {
      into.push({ path, kind: 'folder' });
      publicEntries(root, full, into);
    } else if (stat.isFile()) into.push({ path, kind: 'file', names: stat.nlink });
    else if (stat.isSymbolicLink()) {
      let real: string | null = null;
      try {
        real = realpathSync(full);
      } catch {
        // Leads nowhere: said as such.
      }
      into.push({ path, kind: 'link', target: readlinkSync(full), real });
    } else into.push({ path, kind: 'other' });
  }
}

/** What public/ holds that the build must not publish, one line each; none when there is no public/. */
export function publicProblems(root: string): string[] {
  const dir = join(root, 'public');
  let stat;
  try {
    stat = lstatSync(dir);
  } catch {
    return [];
  }
  const realRoot = realpathSync(root);
  if (stat.isSymbolicLink()) {
    const entry: PublicEntry = { path: 'public', kind: 'link', target: readlinkSync(dir), real: null };
    try {
      entry.real = realpathSync(dir);
    } catch {
      return [publicEntryProblem(entry, realRoot)!];
    }
    if (!isInside(entry.real, realRoot) || !statSync(entry.real).isDirectory())
      return [`public: a symbolic link to ${quoted(entry.target)}, outside the project or not a folder; expected the folder public/ of the project`];
  }
  const entries: PublicEntry[] = [];
  publicEntries(root, dir, entries);
  const realPublic = realpathSync(dir);
  return entries.flatMap((entry) => publicEntryProblem(entry, realPublic) ?? []);
}

/** The file an id of Vite's names (its query and hash cut, `/@fs/` dropped), or null for a virtual or bare id. Pure. */
export function fileOfId(id: string): string | null {
  const path = id.replace(/^\/@fs\//, '/').split(/[?#]/)[0]!;
  return path.startsWith('/') ? path : null;
}

/** Where files of the project may come from: the checkout, git's folder apart, and its installed packages, links resolved. */
export interface Bounds {
  root: string;
  packages: readonly string[];
}

/** `file` (links resolved) is one the project may import. Pure. */
export function mayImport(file: string, bounds: Bounds): boolean {
  if (isInside(file, bounds.root)) return !isInside(file, join(bounds.root, '.git'));
  return bounds.packages.some((dir) => isInside(file, dir));
}

/** A module of the project itself (not of a package): its imports are judged. Pure. */
export function isProjectModule(id: string, bounds: Bounds): boolean {
  const file = fileOfId(id);
  if (file === null || !isInside(file, bounds.root)) return false;
  return !relative(bounds.root, file).split('/').includes('node_modules');
}

/** A package folder (links resolved) that is the checkout's own or lies in a node_modules folder. Pure. */
export const isInstalledPackage = (real: string, realRoot: string): boolean => isInside(real, realRoot) || real.split(sep).includes('node_modules');

/** Node's built-ins an MDX file may not import: prose has no use for them, and they read files and run programs. */
export function mdxBuiltinProblem(importer: string, source: string): string | null {
  if (!importer.split(/[?#]/)[0]!.endsWith('.mdx') || !isBuiltin(source)) return null;
  return `imports ${quoted(source)}, a Node built-in; expected none in an article's MDX (it could read any file of the machine or run a program)`;
}

/** The project's bounds: node_modules may be a link (a worktree's) and its packages links too (a copy's). */
export function projectBounds(root: string): Bounds {
  const real = realpathSync(root);
  const modules = join(root, 'node_modules');
  const packages = new Set<string>();
  const add = (path: string) => {
    try {
      packages.add(realpathSync(path));
    } catch {
      // A link to nothing is no package.
    }
  };
  let names: string[] = [];
  try {
    names = readdirSync(modules);
  } catch {
    // No packages installed.
  }
  for (const name of names) {
    if (!name.startsWith('@')) add(join(modules, name));
    else for (const scoped of readdirSync(join(modules, name))) add(join(modules, name, scoped));
  }
  // An installed package is one the package manager put in a node_modules folder (a copy's links lead to
  // the shared install's); one whose real folder is an author's folder elsewhere (`npm i file:/dir` links
  // it) is outside the checkout like any other path.
  return { root: real, packages: [...packages].filter((dir) => isInstalledPackage(dir, real)) };
}

/** The problem with an import the project's module `importer` makes, resolved to `resolved`, or null. Pure but for `realOf`. */
export function importProblem(importer: string, source: string, resolved: string, bounds: Bounds, realOf: (file: string) => string): string | null {
  const builtin = mdxBuiltinProblem(fileOfId(importer) ?? importer, source);
  if (builtin) return `${relative(bounds.root, fileOfId(importer) ?? importer)}: ${builtin}`;
  const file = fileOfId(resolved);
  if (file === null) return null;
  const real = realOf(file);
  if (mayImport(real, bounds)) return null;
  const shownImporter = relative(bounds.root, fileOfId(importer) ?? importer);
  return `${shownImporter}: imports ${quoted(source)}, which is ${quoted(real)}, outside the project; expected a file of the checkout or of an installed package`;
}

const realOrSelf = (file: string): string => {
  try {
    return realpathSync(file);
  } catch {
    return file;
  }
};

/** A refusal names its files; a stack would only bury them. */
export function refusal(lines: readonly string[]): Error {
  const error = new Error(lines.join('\n'));
  error.stack = '';
  return error;
}

export function siteBounds(): AstroIntegration {
  return {
    name: 'shice-bounds',
    hooks: {
      'astro:config:setup': ({ config, command, updateConfig }) => {
        // `astro preview` serves what was built: it reads no source.
        if (command === 'preview') return;
        const root = new URL('.', config.root).pathname;
        const problems = publicProblems(root);
        if (problems.length) throw refusal(problems);
        const bounds = projectBounds(root);
        updateConfig({
          vite: {
            plugins: [
              {
                name: 'shice:bounds',
                // Before any other resolver: it asks the rest where an import leads, then judges the file.
                enforce: 'pre',
                async resolveId(source, importer, options) {
                  if (!importer || !isProjectModule(importer, bounds)) return null;
                  // A built-in is refused before anything resolves it (Vite may leave it external).
                  const builtin = mdxBuiltinProblem(fileOfId(importer) ?? importer, source);
                  if (builtin) throw refusal([`${relative(bounds.root, fileOfId(importer) ?? importer)}: ${builtin}`]);
                  const resolved = await this.resolve(source, importer, { ...options, skipSelf: true });
                  if (!resolved) return null;
                  const problem = importProblem(importer, source, resolved.id, bounds, realOrSelf);
                  if (problem) throw refusal([problem]);
                  return resolved;
                },
              },
            ],
          },
        });
      },
    },
  };
}
