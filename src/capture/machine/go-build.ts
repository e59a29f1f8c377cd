// What the project's builds from its own Go modules share (kube/ for the lab's
// Kubernetes binaries, tools/ for actionlint): the Go on PATH, the stamp that
// lets an up-to-date build be skipped, and go itself run with its progress
// lines: `go mod download`, then `go build -v` into a .partial file renamed
// into place only when whole. The stamp and the progress line are pure.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { createInterface } from 'node:readline';

/** The Go on PATH as `go env GOVERSION` names it (go1.26.8), or why there is none. */
export function goVersion(env: NodeJS.ProcessEnv = process.env): { version: string } | { problem: string } {
  const run = spawnSync('go', ['env', 'GOVERSION'], { encoding: 'utf8', env });
  if (run.error || run.status !== 0) return { problem: run.error?.message ?? run.stderr.trim() };
  return { version: run.stdout.trim() };
}

/**
 * The stamp of a build from a Go module: its files' contents, the Go
 * toolchain and whatever else the caller says decides the binary. Equal
 * stamps mean the binary on disk is what a build would make now.
 */
export function moduleStamp(files: Record<string, string>, goVersion: string, extra: Record<string, string> = {}): string {
  const hash = createHash('sha256');
  for (const name of Object.keys(files).sort()) hash.update(`${name}\0${files[name]}\0`);
  hash.update(`go\0${goVersion}`);
  for (const name of Object.keys(extra).sort()) hash.update(`\0${name}\0${extra[name]}`);
  return hash.digest('hex');
}

/** Whether the stamp file holds this stamp. */
export function stampIsCurrent(stampFile: string, stamp: string): boolean {
  return existsSync(stampFile) && readFileSync(stampFile, 'utf8').trim() === stamp;
}

export function writeStamp(stampFile: string, stamp: string): void {
  mkdirSync(dirname(stampFile), { recursive: true });
  writeFileSync(stampFile, `${stamp}\n`);
}

/** Whether a line of `go build -v`'s stderr is a package it compiled (its progress), not an error. */
export function isPackageLine(line: string): boolean {
  return /^[\w.-]+(\/[\w.~-]+)*$/.test(line);
}

export interface GoRun {
  /** The module's folder. */
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** Stops go as Ctrl-C does (a capture's interrupt, which ends the build before any run). */
  signal?: AbortSignal;
}

/** Runs go with its stderr line by line (stdout passed through); resolves with its exit code. Ctrl-C stops it. */
export function runGo(args: string[], { cwd, env = process.env, signal }: GoRun, onLine: (line: string) => void): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn('go', args, { cwd, env, stdio: ['ignore', 'inherit', 'pipe'] });
    createInterface({ input: child.stderr }).on('line', onLine);
    const stop = () => child.kill('SIGTERM');
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    signal?.addEventListener('abort', stop, { once: true });
    if (signal?.aborted) stop();
    child.on('close', (code, signal_) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      signal?.removeEventListener('abort', stop);
      resolve(code ?? (signal_ ? 128 : 1));
    });
  });
}

export interface GoBuild extends GoRun {
  /** The prefix of every line written, e.g. `lab:build`. */
  tag: string;
  /** `go build` arguments between `-v` and `-o` (flags, then the packages after). */
  flags: string[];
  packages: string[];
  /** The binary's path: written as `<output>.partial`, then renamed. */
  output: string;
  /** performance.now() when the build began, for the elapsed seconds. */
  started: number;
  /** A progress line every this many packages compiled. */
  every?: number;
  /** Where its own lines go (`<tag>: ...`); stdout when not given. */
  say?: (line: string) => void;
  /** `test`: the package's test binary (go test -c), which names no packages as it compiles them. */
  verb?: 'build' | 'test';
}

export const elapsedSince = (started: number) => `${Math.round((performance.now() - started) / 1000)} s`;

/**
 * `go mod download`, then `go build -v` with a count every 100 packages,
 * errors passed to stderr; the binary renamed into place only when whole, so
 * an interrupted build never leaves a broken one. Resolves with the count of
 * packages compiled, or the one line saying what failed.
 */
export async function goBuild(build: GoBuild): Promise<{ compiled: number } | { problem: string }> {
  const { tag, output, started, every = 100, say = (line: string) => process.stdout.write(`${line}\n`) } = build;
  const errors: string[] = [];
  say(`${tag}: downloading modules (go mod download)`);
  if ((await runGo(['mod', 'download'], build, (line) => errors.push(line))) !== 0)
    return { problem: `go mod download failed: ${errors.slice(-5).join(' | ')}` };

  // `go build -v` names each package as it compiles it: a count every 100 is the progress.
  const partial = `${output}.partial`;
  mkdirSync(dirname(output), { recursive: true });
  let compiled = 0;
  const command = build.verb === 'test' ? ['test', '-c'] : ['build', '-v'];
  const code = await runGo([...command, ...build.flags, '-o', partial, ...build.packages], build, (line) => {
    if (isPackageLine(line)) {
      compiled += 1;
      if (compiled % every === 0) say(`${tag}: ${compiled} packages compiled (${elapsedSince(started)})`);
    } else {
      errors.push(line);
      process.stderr.write(`${line}\n`);
    }
  });
  if (code !== 0) {
    rmSync(partial, { force: true });
    return { problem: `go ${command.join(' ')} failed (exit ${code}) after ${elapsedSince(started)}` };
  }
  renameSync(partial, output);
  return { compiled };
}

/** How the closing line says what was compiled. */
export const compiledText = (compiled: number) => (compiled === 0 ? "every package from Go's build cache" : `${compiled} packages compiled`);
