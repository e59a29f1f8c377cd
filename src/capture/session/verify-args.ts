// `npm run verify -- <slug> --kubeconfig FILE ...`: parsed by a pure function,
// every mistake one line.
import { DRIVERS, type DriverFlag } from '../../experiment/drivers.ts';
import { parseCommandLine, UsageError, wrap } from './cli-args.ts';

export interface VerifyArgs {
  slug: string;
  kubeconfig: string;
  context: string | null;
  /** `--nodes ROLE=NODE,...`, as given; null: chosen. */
  nodes: string | null;
  variant: string | null;
  out: string | null;
  agentImage: string | null;
  standInImages: boolean;
  keep: boolean;
  help: boolean;
}

const COLUMN = 26;
const line = (name: string, usage: readonly string[]) => wrap(usage.join(' '), `  ${name}`.padEnd(COLUMN), COLUMN).join('\n');
/** The existing driver's flags (experiment/drivers.ts), then verify's own. */
const FLAG_LINES = [
  ...(DRIVERS.existing.flags as readonly DriverFlag[]).map((f) => line(`--${f.name}${f.value ? ` ${f.value}` : ''}`, f.usage)),
  line('--variant MODE', [
    "the kube-proxy mode the cluster runs, for an article measured in several (default: kube-proxy's ConfigMap's, else the article's first)",
  ]),
  line('--out DIR', ["where the run's raw output and report go (default: shice-verify/<slug>-<run id>)"]),
  line('--keep', ['leave the namespace for you to look at']),
  line('-h, --help', ['this text']),
].join('\n');

export const VERIFY_USAGE = `Usage: npm run verify -- <slug> --kubeconfig FILE [options]

Runs an article's experiment on a cluster you already have and says, per
claim, whether it holds there. Everything it creates is in a namespace of its
own (shice-verify-<run id>), deleted at the end; it writes nothing into
content/ and publishes nothing.

${FLAG_LINES}

Exit: 0 every claim checked held, 1 a claim broke or the run failed,
2 a usage mistake or a cluster it refused (nothing created).`;

export function parseVerifyArgs(argv: string[]): VerifyArgs {
  const parsed = parseCommandLine(argv, {
    kubeconfig: { type: 'string' },
    context: { type: 'string' },
    nodes: { type: 'string' },
    'agent-image': { type: 'string' },
    'stand-in-images': { type: 'boolean', default: false },
    variant: { type: 'string' },
    out: { type: 'string' },
    keep: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  });
  const v = parsed.values;
  const args: VerifyArgs = {
    slug: parsed.positionals[0] ?? '',
    kubeconfig: v.kubeconfig ?? '',
    context: v.context ?? null,
    nodes: v.nodes ?? null,
    variant: v.variant ?? null,
    out: v.out ?? null,
    agentImage: v['agent-image'] ?? null,
    standInImages: v['stand-in-images'],
    keep: v.keep,
    help: v.help,
  };
  if (args.help) return args;
  if (parsed.positionals.length !== 1) throw new UsageError(`expected one article's slug, got ${parsed.positionals.length} (see --help)`);
  if (!args.kubeconfig.trim()) throw new UsageError('--kubeconfig FILE is required: verify reaches only the cluster you name');
  for (const [flag, value] of [
    ['context', args.context],
    ['nodes', args.nodes],
    ['variant', args.variant],
    ['out', args.out],
    ['agent-image', args.agentImage],
  ] as const)
    if (value !== null && value.trim() === '') throw new UsageError(`--${flag} needs a value`);
  return args;
}
