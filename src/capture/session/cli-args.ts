// `npm run capture -- ...` arguments: parsed by a pure function so every
// mistake is one clear line and the parse is unit-tested.
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import { clip } from '../machine/clip.ts';
import { quoted } from '../../evidence/terminal-text.ts';
import { HEADLINE_RELEASE, KUBE_MINORS, KUBE_RELEASES, kubeRelease, type KubeRelease } from '../../experiment/kubernetes.ts';
import { DEFAULT_DRIVER, DRIVERS, type DriverFlag, type DriverName } from '../../experiment/drivers.ts';
import { CAPTURE_DRIVER_NAMES } from '../../experiment/environments.ts';

export type { DriverName };

export interface CaptureArgs {
  slugs: string[];
  driver: DriverName;
  out: string | null;
  keep: boolean;
  dryRun: boolean;
  clean: boolean;
  /** The flags only the chosen driver takes (experiment/drivers.ts), by name; absent when not given. */
  driverFlags: Readonly<Record<string, string | boolean | undefined>>;
  compare: string | null;
  /** A kept-aside run (its run id or folder) to swap in (--accept). */
  accept: string | null;
  /** The variants to capture (--variant a,b); every variant of the experiment when empty. */
  variants: string[];
  /** The Kubernetes minors to capture (--k8s v1.35); every version the experiment declares when empty. */
  versions: string[];
  help: boolean;
}

export class UsageError extends Error {
  override name = 'UsageError';
}

const COLUMN = 22;
const WIDTH = 80;

/** `text` wrapped at WIDTH, every line after the first indented by `indent`. */
export function wrap(text: string, first: string, indent: number): string[] {
  const lines: string[] = [];
  let line = first;
  for (const word of text.split(' ')) {
    if (line.length + 1 + word.length > WIDTH && line.trim() !== '') {
      lines.push(line);
      line = ' '.repeat(indent) + word;
    } else line = line.endsWith(' ') || line === '' ? line + word : `${line} ${word}`;
  }
  return [...lines, line];
}

const option = (name: string, usage: readonly string[]) => {
  const head = `  ${name}`.padEnd(COLUMN);
  return usage.map((line, i) => (i === 0 ? head : ' '.repeat(COLUMN)) + line).join('\n');
};

const DRIVER_USAGE = [
  option(`--driver ${CAPTURE_DRIVER_NAMES.join('|')}`, [`where the experiment runs (default: ${DEFAULT_DRIVER})`]),
  ...CAPTURE_DRIVER_NAMES.flatMap((name) => {
    const label = `${name}:`.padEnd(6);
    return wrap(`${DRIVERS[name].summary} (needs ${DRIVERS[name].needs})`, `${' '.repeat(COLUMN + 2)}${label}`, COLUMN + 2 + label.length);
  }),
].join('\n');

const flagName = (flag: DriverFlag) => `--${flag.name}${flag.value ? ` ${flag.value}` : ''}`;
const FLAG_USAGE = CAPTURE_DRIVER_NAMES.flatMap((name) =>
  (DRIVERS[name].flags as readonly DriverFlag[]).map((flag) => option(flagName(flag), [`(${name}) ${flag.usage[0]}`, ...flag.usage.slice(1)])),
).join('\n');

export const USAGE = `Usage: npm run capture -- [slug...] [options]

Runs each article's experiment for real and replaces its snapshots
(content/articles/<slug>/snapshots) only when every step has run.
Without a slug, every article (content/articles/<slug>/article.ts) is captured.

Options:
${DRIVER_USAGE}
  --variant V[,V...]  capture only these variants of an experiment that declares
                      variants (e.g. kube-proxy modes: iptables,nftables); default:
                      every variant, each into its own snapshots folder (the default
                      variant's snapshots/, the others' snapshots.<variant>/); the
                      variants are swapped in together, only when every one has run
  --k8s V[,V...]      capture only these Kubernetes versions of the ones the experiment
                      declares (${KUBE_MINORS.join(', ')}); default: every declared version,
                      the headline's into snapshots/, each other's into
                      snapshots.<version>/ (snapshots.v1.34.lab.nftables/)
  --out DIR           write snapshots to DIR/<slug> (DIR/<slug>.<variant>) instead of
                      the article folder
  --keep              leave the cluster or lab up after the run
  --dry-run           print every command of the plan, one per line; run nothing
  --clean             recover captures and lab runs that were killed (kill -9): finish
                      or undo a half-done swap, remove their staging folders, locks,
                      namespaces, processes and temporary folders; capture nothing
${FLAG_USAGE}
  --compare DIR       print what differs between the committed snapshots and the
                      run in DIR (DIR/<slug>, or DIR itself when it holds run.yaml);
                      a run of another driver or Kubernetes version than the one
                      compared (--driver) is refused; capture nothing
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

/** Every driver's own flags, as parseArgs reads them (a name two drivers share is one option). */
const DRIVER_FLAGS: readonly DriverFlag[] = CAPTURE_DRIVER_NAMES.flatMap((name) => DRIVERS[name].flags as readonly DriverFlag[]);
const DRIVER_OPTIONS = Object.fromEntries(
  DRIVER_FLAGS.map((flag) => [flag.name, flag.type === 'boolean' ? { type: 'boolean' as const } : { type: 'string' as const }]),
) as Record<string, { type: 'boolean' } | { type: 'string' }>;

export function parseCaptureArgs(argv: string[]): CaptureArgs {
  const parsed = parseCommandLine(argv, {
    driver: { type: 'string' },
    out: { type: 'string' },
    keep: { type: 'boolean', default: false },
    'dry-run': { type: 'boolean', default: false },
    clean: { type: 'boolean', default: false },
    ...DRIVER_OPTIONS,
    compare: { type: 'string' },
    accept: { type: 'string' },
    variant: { type: 'string', multiple: true },
    k8s: { type: 'string', multiple: true },
    help: { type: 'boolean', short: 'h', default: false },
  });
  const v = parsed.values as Record<string, string | boolean | string[] | undefined> & typeof parsed.values;
  const named = v.driver ?? DEFAULT_DRIVER;
  const driver = CAPTURE_DRIVER_NAMES.find((name) => name === named);
  if (driver === undefined) {
    throw new UsageError(`--driver must be ${CAPTURE_DRIVER_NAMES.slice(0, -1).join(', ')} or ${CAPTURE_DRIVER_NAMES.at(-1)}, got ${quoted(clip(named))}`);
  }
  for (const flag of ['out', 'compare', 'accept', ...DRIVER_FLAGS.filter((f) => f.type === 'string').map((f) => f.name)]) {
    const value = v[flag];
    if (typeof value === 'string' && value.trim() === '') throw new UsageError(`--${flag} needs a value`);
  }
  // Each driver's flags, given only with that driver.
  const given = (flag: DriverFlag) => (flag.type === 'boolean' ? v[flag.name] === true : v[flag.name] !== undefined);
  for (const name of CAPTURE_DRIVER_NAMES)
    for (const flag of DRIVERS[name].flags as readonly DriverFlag[])
      if (given(flag) && name !== driver) throw new UsageError(`--${flag.name} works with --driver ${name} only`);
  const driverFlags = Object.fromEntries(
    (DRIVERS[driver].flags as readonly DriverFlag[]).filter(given).map((flag) => [flag.name, v[flag.name] as string | boolean]),
  );
  const args: CaptureArgs = {
    slugs: parsed.positionals,
    driver,
    out: v.out ?? null,
    keep: v.keep,
    dryRun: v['dry-run'],
    clean: v.clean,
    driverFlags,
    compare: v.compare ?? null,
    accept: v.accept ?? null,
    variants: variantList(v.variant ?? []),
    versions: versionList(v.k8s ?? []),
    help: v.help,
  };
  const driverFlagsGiven = Object.keys(driverFlags).length > 0;
  if (args.compare && (args.dryRun || args.clean || args.keep || args.out || driverFlagsGiven || args.variants.length || args.versions.length)) {
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
      driverFlagsGiven ||
      args.variants.length ||
      args.versions.length ||
      args.compare)
  ) {
    throw new UsageError(
      '--accept swaps in a kept run as it was captured (its article, variants and target are in its kept.json); it takes no slug and no other option',
    );
  }
  const conflict = (DRIVERS[driver] as { flagProblem?: (f: typeof driverFlags) => string | null }).flagProblem?.(driverFlags) ?? null;
  if (conflict !== null) throw new UsageError(conflict);
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

/** `--k8s v1.35,v1.34 --k8s v1.36` as minors, each once; a version the project does not build is a UsageError. */
export function versionList(given: readonly string[], flag = '--k8s'): string[] {
  const names = [...new Set(given.flatMap((list) => list.split(',')).map((name) => name.trim()))];
  try {
    return [...new Set(names.map((name) => kubeRelease(name, flag).minor))];
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/**
 * The releases `--k8s` names for the tools that build them (lab:build, kind:prepare):
 * minors or releases, or `all`; the headline's when none is named.
 */
export function releasesAsked(given: readonly string[]): KubeRelease[] {
  const names = given.flatMap((list) => list.split(/[\s,]+/)).filter(Boolean);
  if (names.includes('all')) return [...KUBE_RELEASES];
  const minors = versionList(names);
  return minors.length ? minors.map((m) => kubeRelease(m)) : [HEADLINE_RELEASE];
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

/** How many known slugs an unknown one's error names: the line stays one line at 75 articles. */
export const KNOWN_SHOWN = 5;

/** The known slugs nearest `slug` (the longest common start first, then in order), at most `count`. Pure. */
export function nearestSlugs(slug: string, known: readonly string[], count = KNOWN_SHOWN): string[] {
  const shared = (a: string) => {
    let n = 0;
    while (n < a.length && n < slug.length && a[n] === slug[n]) n++;
    return n;
  };
  return known
    .map((s, i) => ({ s, i, n: shared(s) }))
    .sort((a, b) => b.n - a.n || a.i - b.i)
    .slice(0, count)
    .sort((a, b) => a.i - b.i)
    .map((x) => x.s);
}

/** Picks the articles to capture; an unknown slug is an error that names the known ones nearest it. */
export function selectSlugs(requested: string[], known: string[]): string[] {
  if (requested.length === 0) return known;
  const unknown = requested.filter((s) => !known.includes(s));
  if (unknown.length) {
    const shown = nearestSlugs(unknown[0]!, known);
    const more = known.length - shown.length;
    throw new UsageError(
      `unknown article ${unknown
        .slice(0, 3)
        .map((s) => quoted(clip(s, 60)))
        .join(', ')}${unknown.length > 3 ? ` and ${unknown.length - 3} more` : ''}; known: ${shown.join(', ') || 'none'}${more > 0 ? ` and ${more} more` : ''}`,
    );
  }
  return [...new Set(requested)];
}
