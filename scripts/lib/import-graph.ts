// The project's import graph and what it must not contain: a cycle, an import
// that runs back up the data flow (experiment -> capture -> evidence -> pages),
// a relative import of a file that is not there, or an import of a file
// outside the project (the build refuses it too: src/article/check/bounds.ts).
// Pure: the caller reads the files and says which paths exist and where a path
// leads. Paths are repository-relative, with `/`.
import ts from 'typescript';
import { posix } from 'node:path';
import { isBuiltin } from 'node:module';
import { fileURLToPath } from 'node:url';
import { matchBrace } from '../../src/evidence/mdx-scan.ts';
import { quoted } from '../../src/evidence/terminal-text.ts';
import { mdxBuiltinProblem } from '../../src/article/check/bounds.ts';

export interface ImportSite {
  specifier: string;
  /** 1-based line in the file as written (an .astro file's own lines). */
  line: number;
}

/** The extensions whose files are read for imports. */
export const SOURCE_EXTENSIONS = ['.ts', '.mts', '.mjs', '.astro', '.mdx'] as const;

/**
 * An .astro file's code as TypeScript sees it: its frontmatter and its
 * `<script>` bodies, everything else blanked to spaces, so that every line
 * keeps its number. Markup never imports.
 */
export function astroCode(source: string): string {
  const keep: Array<[number, number]> = [];
  const front = /^---\r?\n([\s\S]*?)\r?\n---/.exec(source);
  if (front) keep.push([front[0].indexOf('\n') + 1, front[0].indexOf('\n') + 1 + front[1]!.length]);
  for (const m of source.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)) {
    // An inline script is the browser's, copied as written: its imports are no module's.
    if (/\bis:inline\b/.test(m[0].slice(0, m[0].indexOf('>')))) continue;
    const start = m.index + m[0].indexOf('>') + 1;
    keep.push([start, start + m[1]!.length]);
  }
  let code = '';
  let at = 0;
  for (const [start, end] of keep.sort((a, b) => a[0] - b[0])) {
    code += source.slice(at, start).replace(/[^\n]/g, ' ') + source.slice(start, end);
    at = end;
  }
  return code + source.slice(at).replace(/[^\n]/g, ' ');
}

const FENCE = /^\s*(`{3,}|~{3,})/;

/**
 * An MDX file's code as TypeScript sees it: its import/export blocks and its
 * `{…}` expressions (in prose and in attributes), everything else blanked to
 * spaces, so that every line keeps its number. Frontmatter, fenced code and
 * inline code never import.
 */
export function mdxCode(source: string): string {
  const keep: Array<[number, number]> = [];
  let fence: string | undefined;
  let esm = false;
  let front = /^---\r?(\n|$)/.test(source);
  for (let pos = 0, first = true; pos < source.length; first = false) {
    let eol = source.indexOf('\n', pos);
    if (eol < 0) eol = source.length;
    const line = source.slice(pos, eol);
    if (front) {
      if (!first && line.trim() === '---') front = false;
    } else if (fence) {
      const m = FENCE.exec(line);
      if (m && m[1]![0] === fence[0] && m[1]!.length >= fence.length && line.trim() === m[1]) fence = undefined;
    } else if (esm || /^(?:import|export)\b/.test(line)) {
      keep.push([pos, eol]);
      esm = line.trim() !== '';
    } else if (FENCE.test(line)) {
      fence = FENCE.exec(line)![1];
    } else {
      for (let i = pos; i < eol; i++) {
        if (source[i] === '`') {
          const ticks = /`+/y;
          ticks.lastIndex = i;
          const run = ticks.exec(source)![0];
          const close = source.indexOf(run, i + run.length);
          i = (close >= 0 && close < eol ? close + run.length : i + run.length) - 1;
        } else if (source[i] === '{') {
          const end = matchBrace(source, i);
          if (end < 0) break;
          keep.push([i, end]);
          // An expression may run over several lines: the scan goes on after it, on the line it ends.
          if (end > eol) eol = source.indexOf('\n', end) < 0 ? source.length : source.indexOf('\n', end);
          i = end - 1;
        }
      }
    }
    pos = eol + 1;
  }
  let code = '';
  let at = 0;
  for (const [start, end] of keep) {
    code += source.slice(at, start).replace(/[^\n]/g, ' ') + source.slice(start, end);
    at = end;
  }
  return code + source.slice(at).replace(/[^\n]/g, ' ');
}

/**
 * Every module a file names with a literal: `import … from`, `import '…'`,
 * `export … from`, `import('…')` and `import('…').Type`. Parsed, not matched,
 * so a specifier inside a string, a template or a comment is none.
 */
export function importSites(file: string, source: string): ImportSite[] {
  const code = file.endsWith('.astro') ? astroCode(source) : file.endsWith('.mdx') ? mdxCode(source) : source;
  const kind = file.endsWith('.mjs') ? ts.ScriptKind.JS : file.endsWith('.mdx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const tree = ts.createSourceFile(file, code, ts.ScriptTarget.Latest, true, kind);
  const sites: ImportSite[] = [];
  const add = (literal: ts.Node) => {
    if (!ts.isStringLiteralLike(literal)) return;
    sites.push({ specifier: literal.text, line: tree.getLineAndCharacterOfPosition(literal.getStart(tree)).line + 1 });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) add(node.moduleSpecifier);
    else if (ts.isExportDeclaration(node) && node.moduleSpecifier) add(node.moduleSpecifier);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0]) add(node.arguments[0]);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) add(node.argument.literal);
    ts.forEachChild(node, visit);
  };
  visit(tree);
  return sites;
}

/**
 * Where an MDX file's code reaches for the machine without an import: `process` (process.getBuiltinModule
 * hands out node:fs), `require`, `import.meta`. Prose has no use for them. Line numbers 1-based.
 */
export function mdxMachineSites(file: string, source: string): ImportSite[] {
  const tree = ts.createSourceFile(file, mdxCode(source), ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
  const sites: ImportSite[] = [];
  const visit = (node: ts.Node): void => {
    const named =
      ts.isIdentifier(node) &&
      ['process', 'require', 'globalThis'].includes(node.text) &&
      !(ts.isPropertyAccessExpression(node.parent) && node.parent.name === node)
        ? node.text
        : ts.isMetaProperty(node) && node.keywordToken === ts.SyntaxKind.ImportKeyword
          ? 'import.meta'
          : null;
    if (named) sites.push({ specifier: named, line: tree.getLineAndCharacterOfPosition(node.getStart(tree)).line + 1 });
    ts.forEachChild(node, visit);
  };
  visit(tree);
  return sites;
}

/** The package folder a bare specifier names (`node_modules/<name>`, `node_modules/@scope/<name>`), or null. Pure. */
export function packageFolder(specifier: string): string | null {
  if (/^[./]/.test(specifier) || specifier.includes(':')) return null;
  const parts = specifier.split(/[?#]/)[0]!.split('/');
  const name = parts[0]!.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
  return name ? `node_modules/${name}` : null;
}

/** The repository path a relative specifier names, or null for a package (or any bare) specifier. */
export function resolveRelative(from: string, specifier: string): string | null {
  if (!specifier.startsWith('./') && !specifier.startsWith('../')) return null;
  return posix.normalize(posix.join(posix.dirname(from), specifier.split(/[?#]/)[0]!));
}

/**
 * The path an import names, as the build reads it: repository-relative (climbing out with `../` when it
 * escapes), or absolute for a `file:` URL, Vite's `/@fs/` and a `/path` that is no file of the project
 * (Vite reads `/x` as the project's x first). Null for a package or a virtual module. Pure.
 */
export function importedPath(from: string, specifier: string, exists: (path: string) => boolean): string | null {
  const path = specifier.split(/[?#]/)[0]!;
  if (path.startsWith('file:')) {
    try {
      return fileURLToPath(path);
    } catch {
      return path.slice('file:'.length);
    }
  }
  if (path.startsWith('/@fs/')) return posix.normalize(path.slice('/@fs'.length));
  if (path.startsWith('/')) return exists(posix.normalize(path.slice(1))) ? posix.normalize(path.slice(1)) : posix.normalize(path);
  if (path.startsWith('./') || path.startsWith('../')) return posix.normalize(posix.join(posix.dirname(from), path));
  return null;
}

/** Outside the project by its path alone: absolute, or climbing out of it; the script resolves links too. */
export const outsideByPath = (path: string): string | null => (path.startsWith('/') || path === '..' || path.startsWith('../') ? path : null);

export interface LayerRule {
  /** The folder the rule is about, with a trailing slash. */
  layer: string;
  /** Folders it must not import. */
  forbidden: readonly string[];
  /** Why, for the message. */
  because: string;
}

const SITE = ['src/article/', 'src/components/', 'src/pages/', 'src/layouts/'];
/** The capture's top floors: a capture's session (what chooses a driver and runs it), the merge of runs captured elsewhere, and the commands the CLIs call. */
const CAPTURE_TOP = ['src/capture/session/', 'src/capture/merge/', 'src/capture/command/'];
/** Where a run's output goes and what it keeps about itself, below the session. */
const CAPTURE_RECORDS = ['src/capture/snapshots/', 'src/capture/recovery/'];
const CAPTURE_ABOVE_DRIVERS = ['src/capture/kubernetes/', ...CAPTURE_TOP];
const DRIVER_FOLDERS = ['src/capture/kind/', 'src/capture/lab/', 'src/capture/existing/'];
const CAPTURE_ABOVE_PROVIDER = [...DRIVER_FOLDERS, ...CAPTURE_ABOVE_DRIVERS];
const CAPTURE_ABOVE_KUBECTL = ['src/capture/provider/', ...CAPTURE_ABOVE_PROVIDER];
const CAPTURE_ABOVE_PROCESS = ['src/capture/kubectl/', ...CAPTURE_ABOVE_KUBECTL];

/** The data flow, as imports may follow it: each layer reads only what comes before it. */
export const LAYER_RULES: readonly LayerRule[] = [
  { layer: 'src/experiment/', forbidden: ['src/capture/', 'src/evidence/', ...SITE], because: 'an experiment is plain data that everything else reads' },
  // The capture's floors, bottom up: the process runner; kubectl's argv builders and parsers; the node
  // provider's contract; the drivers (kind/, lab/, existing/), which provide nodes; the Kubernetes platform above
  // them (kubernetes/); then the registry and the runner, which choose and combine them, and the commands the CLIs call.
  {
    layer: 'src/capture/machine/process.ts',
    forbidden: [...CAPTURE_ABOVE_PROCESS, ...SITE],
    because: 'every floor of the capture runs its processes through it',
  },
  {
    layer: 'src/capture/kubectl/',
    forbidden: [...CAPTURE_ABOVE_KUBECTL, ...SITE],
    because: "kubectl's argv builders and parsers are pure, below every driver",
  },
  {
    layer: 'src/capture/provider/',
    forbidden: [...CAPTURE_ABOVE_PROVIDER, ...SITE],
    because: 'the node provider contract is the floor every driver builds on',
  },
  ...DRIVER_FOLDERS.map((layer) => ({
    layer,
    forbidden: [...DRIVER_FOLDERS.filter((other) => other !== layer), ...CAPTURE_ABOVE_DRIVERS, ...SITE],
    because: 'a driver provides nodes: it knows neither another driver nor the platform above it',
  })),
  {
    layer: 'src/capture/kubernetes/',
    forbidden: [...DRIVER_FOLDERS, ...CAPTURE_TOP, ...SITE],
    because: 'the platform works on any node provider through its contract',
  },
  // Beside the drivers, the capture's own floors, bottom up: the machine (its processes, caches and probes),
  // the snapshot folders a run writes, the records and locks a run keeps and the recovery after a kill,
  // the session, the merge, and the commands.
  { layer: 'src/capture/machine/', forbidden: [...CAPTURE_RECORDS, ...CAPTURE_TOP, ...SITE], because: 'the machine is the floor every capture stands on' },
  {
    layer: 'src/capture/snapshots/',
    forbidden: ['src/capture/recovery/', ...CAPTURE_TOP, ...SITE],
    because: 'writing a snapshot folder knows neither the records a run keeps nor its session',
  },
  { layer: 'src/capture/recovery/', forbidden: [...CAPTURE_TOP, ...SITE], because: 'a run’s records are read by whatever recovers it, never the other way' },
  {
    layer: 'src/capture/session/',
    forbidden: ['src/capture/merge/', 'src/capture/command/', ...SITE],
    because: 'a capture runs without the merge (the merge uses its judgement) and without the commands that call it',
  },
  { layer: 'src/capture/', forbidden: SITE, because: 'the capture writes snapshots; the pages only read them' },
  { layer: 'src/evidence/', forbidden: ['src/capture/', ...SITE], because: 'evidence is derived from snapshots, whoever wrote them, for whatever shows it' },
];

export interface ImportGraph {
  /** file -> the files it imports (only files in the graph), in order of appearance. */
  edges: Map<string, string[]>;
  problems: string[];
}

/**
 * The graph of `files` and every problem but cycles: an import of a file outside the project (`outside`
 * gives where a path really leads when that is out of the project, else null), a relative import of a
 * path that `exists` denies, and an import against a layer rule.
 */
export function importGraph(
  files: ReadonlyMap<string, string>,
  exists: (path: string) => boolean,
  rules: readonly LayerRule[] = LAYER_RULES,
  outside: (path: string) => string | null = outsideByPath,
): ImportGraph {
  const edges = new Map<string, string[]>();
  const problems: string[] = [];
  const known = (path: string) => files.has(path) || exists(path);
  for (const [file, source] of [...files].sort(([a], [b]) => a.localeCompare(b))) {
    const targets: string[] = [];
    if (file.endsWith('.mdx'))
      for (const site of mdxMachineSites(file, source))
        problems.push(
          `${file}:${site.line}: uses ${site.specifier}; expected none in an article's MDX (it could read any file of the machine or run a program)`,
        );
    for (const site of importSites(file, source)) {
      const builtin = mdxBuiltinProblem(file, site.specifier);
      if (builtin) {
        problems.push(`${file}:${site.line}: ${builtin}`);
        continue;
      }
      // A package is judged by where its folder really is: one linked to an author's folder is outside.
      const reached = importedPath(file, site.specifier, known) ?? (isBuiltin(site.specifier) ? null : packageFolder(site.specifier));
      const out = reached === null ? null : outside(reached);
      if (out !== null) {
        problems.push(`${file}:${site.line}: imports ${quoted(site.specifier)}, which is ${quoted(out)}, outside the project; expected a file inside it`);
        continue;
      }
      const target = resolveRelative(file, site.specifier);
      if (target === null) continue;
      if (!files.has(target) && !exists(target)) {
        problems.push(`${file}:${site.line}: imports "${site.specifier}": no such file (expected ${target})`);
        continue;
      }
      const rule = rules.find((r) => file.startsWith(r.layer));
      const crossed = rule?.forbidden.find((f) => target.startsWith(f));
      if (rule && crossed)
        problems.push(
          `${file}:${site.line}: imports ${target}: ${rule.layer.replace(/\/$/, '')} must not import ${crossed.replace(/\/$/, '')} (${rule.because})`,
        );
      if (files.has(target) && !targets.includes(target)) targets.push(target);
    }
    edges.set(file, targets);
  }
  return { edges, problems };
}

/** The strongly connected parts of the graph that hold a cycle (more than one file, or a file that imports itself). */
function knots(edges: ReadonlyMap<string, readonly string[]>): string[][] {
  // Tarjan's algorithm, iterative: a deep import chain must not overflow the stack.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const found: string[][] = [];
  let next = 0;
  for (const root of [...edges.keys()].sort()) {
    if (index.has(root)) continue;
    const work: Array<{ node: string; child: number }> = [{ node: root, child: 0 }];
    index.set(root, next);
    low.set(root, next++);
    stack.push(root);
    onStack.add(root);
    while (work.length) {
      const top = work.at(-1)!;
      const children = edges.get(top.node) ?? [];
      if (top.child < children.length) {
        const child = children[top.child++]!;
        if (!index.has(child)) {
          index.set(child, next);
          low.set(child, next++);
          stack.push(child);
          onStack.add(child);
          work.push({ node: child, child: 0 });
        } else if (onStack.has(child)) {
          low.set(top.node, Math.min(low.get(top.node)!, index.get(child)!));
        }
        continue;
      }
      work.pop();
      if (work.length) low.set(work.at(-1)!.node, Math.min(low.get(work.at(-1)!.node)!, low.get(top.node)!));
      if (low.get(top.node) !== index.get(top.node)) continue;
      const part: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        part.push(member);
      } while (member !== top.node);
      if (part.length > 1 || children.includes(top.node)) found.push(part.sort());
    }
  }
  return found;
}

/** The shortest way from `start` back to itself inside `part`: [start, …, start]. */
function shortestCycle(start: string, part: ReadonlySet<string>, edges: ReadonlyMap<string, readonly string[]>): string[] {
  const cameFrom = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const node = queue[i]!;
    for (const child of edges.get(node) ?? []) {
      if (!part.has(child)) continue;
      if (child === start) {
        const path = [node];
        while (path[0] !== start) path.unshift(cameFrom.get(path[0]!)!);
        return [...path, start];
      }
      if (!cameFrom.has(child)) {
        cameFrom.set(child, node);
        queue.push(child);
      }
    }
  }
  throw new Error(`no cycle through ${start}`); // unreachable: start is in a knot
}

/**
 * Every cycle worth naming: for each file caught in one, the shortest cycle
 * through it, each cycle once (whichever file it starts from), starting from
 * its first file in path order.
 */
export function importCycles(edges: ReadonlyMap<string, readonly string[]>): string[][] {
  const cycles = new Map<string, string[]>();
  for (const part of knots(edges)) {
    const members = new Set(part);
    for (const file of part) {
      const cycle = shortestCycle(file, members, edges);
      const loop = cycle.slice(0, -1);
      const first = loop.indexOf([...loop].sort()[0]!);
      const canonical = [...loop.slice(first), ...loop.slice(0, first)];
      cycles.set(canonical.join('\0'), [...canonical, canonical[0]!]);
    }
  }
  return [...cycles.values()].sort((a, b) => a.join().localeCompare(b.join()));
}

/** Every problem of the import graph, one line each: missing files, layer violations, then cycles. */
export function checkImports(
  files: ReadonlyMap<string, string>,
  exists: (path: string) => boolean,
  rules: readonly LayerRule[] = LAYER_RULES,
  outside: (path: string) => string | null = outsideByPath,
): string[] {
  const { edges, problems } = importGraph(files, exists, rules, outside);
  return [...problems, ...importCycles(edges).map((cycle) => `import cycle: ${cycle.join(' -> ')}`)];
}
