// `npm run bench -- ...` arguments, parsed by a pure function so every
// mistake is one clear line.
import { parseArgs } from 'node:util';
import { GROUPS, type Group } from './figures.ts';
import { quoted } from '../src/evidence/terminal-text.ts';

export class UsageError extends Error {
  override name = 'UsageError';
}

export interface BenchArgs {
  help: boolean;
  /** `--compare OLD NEW`: print the difference of two result files, measure nothing. */
  compare: [string, string] | null;
  skipLab: boolean;
  skipKind: boolean;
  skipTests: boolean;
  /** Groups to measure, in the order they run. */
  groups: Group[];
  /** Article counts of the growth series. */
  sizes: number[];
  /** Articles in each site of the binding comparison. */
  bindingArticles: number;
  /** Stop a single build after this long and report the size as too slow. */
  buildTimeoutSeconds: number;
  /** The article copied into the generated sites. */
  article: string;
}

export const DEFAULTS = {
  sizes: [1, 10, 40],
  bindingArticles: 50,
  buildTimeoutSeconds: 300,
  article: '074-external-traffic-policy',
} as const;

export const USAGE = `Usage: npm run bench -- [options]
       npm run bench -- --compare OLD.json NEW.json

Measures what the project costs, each figure beside its baseline or target,
and writes bench-results/<time>.json and bench-results/latest.json.
Reports, does not assert: exits 1 only when a figure could not be measured.

Options:
  --skip-lab              do not run the lab capture (root, Linux) and do not fail for it
  --skip-kind             do not run kind:prepare and the kind capture (root, Linux, Docker) and do not fail for it
  --skip-tests            do not run npm test twice (root, Linux; about half an hour) and do not fail for it
  --only GROUP[,GROUP]    measure only these: ${GROUPS.join(', ')}
  --sizes N,N,...         articles per site in the growth series (default ${DEFAULTS.sizes.join(',')})
  --binding-articles N    articles per site in the binding comparison (default ${DEFAULTS.bindingArticles})
  --build-timeout S       stop a build after S seconds and report it (default ${DEFAULTS.buildTimeoutSeconds})
  --article SLUG          the article the generated sites copy (default ${DEFAULTS.article})
  --compare OLD NEW       compare two result files figure by figure
  -h, --help              show this help`;

function positiveInteger(flag: string, text: string, min = 1): number {
  if (!/^\d+$/.test(text.trim()) || Number(text) < min) throw new UsageError(`${flag}: expected a whole number >= ${min}, got ${quoted(text)}`);
  return Number(text);
}

export function parseBenchArgs(argv: readonly string[]): BenchArgs {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        help: { type: 'boolean', short: 'h', default: false },
        compare: { type: 'boolean', default: false },
        'skip-lab': { type: 'boolean', default: false },
        'skip-kind': { type: 'boolean', default: false },
        'skip-tests': { type: 'boolean', default: false },
        only: { type: 'string' },
        sizes: { type: 'string' },
        'binding-articles': { type: 'string' },
        'build-timeout': { type: 'string' },
        article: { type: 'string' },
      },
    });
  } catch (error) {
    throw new UsageError(`${(error as Error).message.split('\n')[0]} (see --help)`);
  }
  const v = parsed.values;
  let compare: [string, string] | null = null;
  if (v.compare) {
    if (parsed.positionals.length !== 2) throw new UsageError(`--compare needs two result files (OLD NEW), got ${parsed.positionals.length}`);
    compare = [parsed.positionals[0]!, parsed.positionals[1]!];
  } else if (parsed.positionals.length) {
    throw new UsageError(`unexpected argument ${quoted(parsed.positionals[0]!)} (see --help)`);
  }

  let groups: Group[] = [...GROUPS];
  if (v.only !== undefined) {
    const asked = v.only
      .split(',')
      .map((g) => g.trim())
      .filter(Boolean);
    const unknown = asked.filter((g) => !(GROUPS as readonly string[]).includes(g));
    if (!asked.length || unknown.length) throw new UsageError(`--only: expected groups from ${GROUPS.join(', ')}, got ${quoted(v.only)}`);
    groups = GROUPS.filter((g) => asked.includes(g));
  }

  let sizes: number[] = [...DEFAULTS.sizes];
  if (v.sizes !== undefined) {
    sizes = [...new Set(v.sizes.split(',').map((s) => positiveInteger('--sizes', s)))].sort((a, b) => a - b);
    if (sizes.length < 3) throw new UsageError(`--sizes: expected at least 3 different sizes (a line needs 2, its shape 3), got ${quoted(v.sizes)}`);
  }

  const article = v.article ?? DEFAULTS.article;
  if (!/^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(article))
    throw new UsageError(`--article: expected a slug (lowercase letters and digits joined by dashes), got ${quoted(article)}`);

  return {
    help: v.help,
    compare,
    skipLab: v['skip-lab'],
    skipKind: v['skip-kind'],
    skipTests: v['skip-tests'],
    groups,
    sizes,
    bindingArticles: v['binding-articles'] === undefined ? DEFAULTS.bindingArticles : positiveInteger('--binding-articles', v['binding-articles']),
    buildTimeoutSeconds: v['build-timeout'] === undefined ? DEFAULTS.buildTimeoutSeconds : positiveInteger('--build-timeout', v['build-timeout'], 10),
    article,
  };
}
