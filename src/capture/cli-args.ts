// `npm run capture -- ...` arguments: parsed by a pure function so every
// mistake is one clear line and the parse is unit-tested.
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import { clip } from './clip.ts';
import { quoted } from '../evidence/terminal-text.ts';
import type { EnvironmentName } from '../experiment/types.ts';

/** A capture driver is the environment it measures in (src/experiment/environments.ts). */
export type DriverName = EnvironmentName;

export interface CaptureArgs {
  slugs: string[];
  driver: DriverName;
  out: string | null;
  keep: boolean;
  dryRun: boolean;
  clean: boolean;
  reuse: boolean;
  image: string | null;
  loadImages: boolean;
  compare: string | null;
  /** A kept-aside run (its run id or folder) to swap in (--accept). */
  accept: string | null;
  kubeBin: string | null;
  /** The variants to capture (--variant a,b); every variant of the experiment when empty. */
  variants: string[];
  help: boolean;
}

export class UsageError extends Error {
  override name = 'UsageError';
}

export const USAGE = `Usage: npm run capture -- [slug...] [options]

Runs each article's experiment for real and replaces its snapshots
(content/articles/<slug>/snapshots) only when every step has run.
Without a slug, every article (content/articles/<slug>/article.ts) is captured.

Options:
  --driver kind|lab   where the experiment runs (default: kind)
                        kind: a real 3-node kind cluster (needs docker, kind, kubectl)
                        lab:  real Kubernetes (etcd, kube-apiserver, controller-manager,
                              scheduler, kube-proxy) in network namespaces on this Linux
                              kernel (needs root, npm run lab:build, and Debian's iproute2,
                              iptables, conntrack, containernetworking-plugins, openssl,
                              nginx-light, curl)
  --variant V[,V...]  capture only these variants of an experiment that declares
                      variants (e.g. kube-proxy modes: iptables,nftables); default:
                      every variant, each into its own snapshots folder (the default
                      variant's snapshots/, the others' snapshots.<variant>/); the
                      variants are swapped in together, only when every one has run
  --out DIR           write snapshots to DIR/<slug> (DIR/<slug>.<variant>) instead of
                      the article folder
  --keep              leave the cluster or lab up after the run
  --dry-run           print every command of the plan, one per line; run nothing
  --clean             recover captures and lab runs that were killed (kill -9): finish
                      or undo a half-done swap, remove their staging folders, locks,
                      namespaces, processes and temporary folders; capture nothing
  --kube-bin DIR      (lab) the Kubernetes binaries (etcd, kube-apiserver, ...) from DIR,
                      e.g. the official server release, instead of npm run lab:build's
                      (also: SHICE_KUBE_BIN=DIR)
  --reuse             (kind) run on the cluster an earlier capture created and kept
  --image IMG         (kind) node image, e.g. kindest/node:v1.37.0
  --load-images       (kind) load the backend image from local docker into the nodes
  --compare DIR       print what differs between the committed snapshots and the
                      run in DIR (DIR/<slug>, or DIR itself when it holds run.yaml);
                      capture nothing
  --accept RUN        swap in a run a capture kept aside because a claim broke (its
                      run id, or its folder .shice/kept/<run id>): its facts are
                      derived again, then it replaces the snapshots under the same
                      lock and records as a capture; capture nothing
  -h, --help          show this help

Before a run replaces any snapshots, its facts are derived and its claims are
evaluated (every variant's together). A run whose facts cannot be derived is no
measurement: exit 1, the snapshots stay as they were. A run on which a claim no
longer holds is not swapped in either: each broken claim is printed with its
values and files, the run is kept at .shice/kept/<run id>, exit 3; if the claim
was wrong about Kubernetes (a finding, not a broken run), --accept swaps it in
and the prose is then changed to match.

After a capture, the difference from the snapshots it replaced is printed: facts
that changed (old -> new), new or missing steps, claims whose status changed;
values that differ on every run by design are listed apart as volatile.

Exit codes: 0 swapped in; 1 the run failed (or its facts could not be derived);
2 usage, prerequisites or a target refused; 3 a claim broke (the run was kept
aside); 130 and 143 interrupted by SIGINT and SIGTERM.`;

export function parseCaptureArgs(argv: string[]): CaptureArgs {
  const parsed = parseCommandLine(argv, {
    driver: { type: 'string' },
    out: { type: 'string' },
    keep: { type: 'boolean', default: false },
    'dry-run': { type: 'boolean', default: false },
    clean: { type: 'boolean', default: false },
    reuse: { type: 'boolean', default: false },
    image: { type: 'string' },
    'load-images': { type: 'boolean', default: false },
    compare: { type: 'string' },
    accept: { type: 'string' },
    'kube-bin': { type: 'string' },
    variant: { type: 'string', multiple: true },
    help: { type: 'boolean', short: 'h', default: false },
  });
  const v = parsed.values;
  const driver = v.driver ?? 'kind';
  if (driver !== 'kind' && driver !== 'lab') {
    throw new UsageError(`--driver must be kind or lab, got ${quoted(clip(driver))}`);
  }
  for (const flag of ['out', 'image', 'compare', 'accept', 'kube-bin'] as const) {
    if (v[flag] !== undefined && v[flag].trim() === '') throw new UsageError(`--${flag} needs a value`);
  }
  const args: CaptureArgs = {
    slugs: parsed.positionals,
    driver,
    out: v.out ?? null,
    keep: v.keep,
    dryRun: v['dry-run'],
    clean: v.clean,
    reuse: v.reuse,
    image: v.image ?? null,
    loadImages: v['load-images'],
    compare: v.compare ?? null,
    accept: v.accept ?? null,
    kubeBin: v['kube-bin'] ?? null,
    variants: variantList(v.variant ?? []),
    help: v.help,
  };
  for (const [flag, on] of [
    ['--reuse', args.reuse],
    ['--image', args.image !== null],
    ['--load-images', args.loadImages],
  ] as const) {
    if (on && driver !== 'kind') throw new UsageError(`${flag} works with --driver kind only`);
  }
  if (args.kubeBin !== null && driver !== 'lab') throw new UsageError('--kube-bin works with --driver lab only');
  if (args.compare && (args.dryRun || args.clean || args.keep || args.out || args.reuse || args.loadImages || args.image || args.variants.length)) {
    throw new UsageError('--compare only compares two runs; it takes no capture options');
  }
  if (
    args.accept !== null &&
    (args.slugs.length ||
      v.driver !== undefined ||
      args.dryRun ||
      args.clean ||
      args.keep ||
      args.out ||
      args.reuse ||
      args.loadImages ||
      args.image ||
      args.variants.length ||
      args.compare ||
      args.kubeBin)
  ) {
    throw new UsageError(
      '--accept swaps in a kept run as it was captured (its article, variants and target are in its kept.json); it takes no slug and no other option',
    );
  }
  if (args.reuse && args.image) throw new UsageError('--reuse runs on an existing cluster: --image would not apply');
  return args;
}

/** `--variant a,b --variant c` as names, each once; a name that is not lowercase letters and digits is a UsageError. */
export function variantList(given: readonly string[], flag = '--variant'): string[] {
  const names = [...new Set(given.flatMap((list) => list.split(',')).map((name) => name.trim()))];
  if (given.length && names.some((name) => !/^[a-z0-9]+$/.test(name))) {
    throw new UsageError(`${flag} expects names of lowercase letters and digits separated by commas, got ${quoted(clip(given.join(',')))}`);
  }
  return names;
}

/**
 * A command line parsed by node:util's parseArgs, strictly, positionals allowed; its
 * complaint is a UsageError of one line (its first sentence: the hint about `--` does not apply here).
 */
export function parseCommandLine<const T extends ParseArgsOptionsConfig>(argv: string[], options: T) {
  try {
    return parseArgs({ args: argv, allowPositionals: true, strict: true, options });
  } catch (error) {
    const first = (error as Error).message.split('\n')[0]!.split('. To specify')[0]!.replace(/\.$/, '');
    throw new UsageError(`${clip(first, 160)} (see --help)`);
  }
}

/** Picks the articles to capture; an unknown slug is an error that lists the known ones. */
export function selectSlugs(requested: string[], known: string[]): string[] {
  if (requested.length === 0) return known;
  const unknown = requested.filter((s) => !known.includes(s));
  if (unknown.length) {
    throw new UsageError(
      `unknown article ${unknown
        .slice(0, 3)
        .map((s) => quoted(clip(s, 60)))
        .join(', ')}${unknown.length > 3 ? ` and ${unknown.length - 3} more` : ''}; known: ${known.join(', ') || 'none'}`,
    );
  }
  return [...new Set(requested)];
}
