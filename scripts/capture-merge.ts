// `npm run capture:merge -- DIR... [--variant V,...] [--report FILE] [--accept-broken-claims]`:
// run folders written by `capture --out` (here or on other machines: a CI matrix's
// artifacts) checked as the build would and swapped into the articles' snapshots
// by a capture's rules (src/capture/merge/merge.ts, swap-in.ts). The I/O edge: arguments,
// signals, the report, exit codes.
import { relative } from 'node:path';
import { constants as osConstants } from 'node:os';
import { fileURLToPath } from 'node:url';
import { UsageError } from '../src/capture/session/cli-args.ts';
import { clip } from '../src/capture/machine/clip.ts';
import { PROVIDER_LEFTOVERS } from '../src/capture/session/drivers.ts';
import { MERGE_USAGE, parseMergeArgs, type MergeArgs } from '../src/capture/session/matrix.ts';
import { ACCEPT_HINT, prepareMerge } from '../src/capture/merge/merge.ts';
import { ArticleFolderError } from '../src/authoring/load.ts';
import { recoverDeadRuns } from '../src/capture/recovery/recover.ts';
import { judgeReportPath, writeReport, type ReportPlace } from '../src/capture/merge/report-file.ts';
import { reportMarkdown, type ReportSection } from '../src/capture/merge/report-markdown.ts';
import { swapInRuns, SwapError, SwapInterrupted } from '../src/capture/merge/swap-in.ts';
import { checkTarget, TargetError } from '../src/capture/snapshots/target.ts';
import { claimsReport, overallVerdict, runSide, tryEvidence, whatChanged, type Verdict } from '../src/capture/session/what-changed.ts';
import { terminalSafe } from '../src/evidence/terminal-text.ts';

const root = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '');

function fail(lines: readonly string[], code: number): never {
  for (const line of lines) process.stderr.write(`capture:merge: ${terminalSafe(clip(line.replaceAll('\n', ' | '), 4000))}\n`);
  process.exit(code);
}

const say = (line: string) => process.stderr.write(`${terminalSafe(line)}\n`);
const signalExitCode = (signal: NodeJS.Signals) => 128 + (osConstants.signals[signal] ?? 0);

// Until the swap is under way a signal ends the merge at once; during it, the swap is stopped and undone.
const controller = new AbortController();
let stopSignal: NodeJS.Signals | null = null;
let swapping = false;
const onSignal = (signal: NodeJS.Signals) => {
  stopSignal ??= signal;
  if (!swapping) process.exit(signalExitCode(signal));
  controller.abort();
};
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);
for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});

async function main(): Promise<void> {
  let args: MergeArgs;
  try {
    args = parseMergeArgs(process.argv.slice(2));
  } catch (error) {
    if (error instanceof UsageError) fail([error.message], 2);
    throw error;
  }
  if (args.help) {
    process.stdout.write(`${MERGE_USAGE}\n`);
    return;
  }
  // The report is written after the swap: a place it cannot or must not go is refused before anything is touched.
  let report: ReportPlace | null = null;
  if (args.report) {
    const judged = judgeReportPath(args.report, root);
    if ('problem' in judged) fail([`--report ${clip(args.report, 160)}: ${judged.problem}; nothing was merged`], 2);
    report = judged.place;
  }
  const started = performance.now();
  const ready = await prepareMerge({ root, dirs: args.dirs, variants: args.variants, acceptBrokenClaims: args.acceptBrokenClaims });
  if ('code' in ready) fail([...ready.lines, ...(ready.code === 3 ? [] : ['nothing was merged'])], ready.code);
  const runs = ready.groups.flatMap((g) => g.runs);
  for (const run of runs) {
    try {
      checkTarget(run.target, run.slug, relative(process.cwd(), run.target) || run.target, [root]);
    } catch (error) {
      if (error instanceof TargetError) fail([error.message, 'nothing was merged'], 2);
      throw error;
    }
  }
  // Runs killed earlier are found by their records and put right before the baselines are read.
  await recoverDeadRuns((line) => say(`capture:merge: recovered: ${line}`), { leftovers: PROVIDER_LEFTOVERS, leaveKept: true });
  for (const note of ready.notes) say(`capture:merge: ${note}`);

  swapping = true;
  let previous;
  try {
    previous = await swapInRuns(ready.groups, {
      signal: controller.signal,
      say: (line) => say(`capture:merge: ${line}`),
      acceptBrokenClaims: args.acceptBrokenClaims,
    });
  } catch (error) {
    // An unsettled swap's message says which targets hold what.
    if (error instanceof SwapError) fail([error.message, ...(error.code === 3 ? [ACCEPT_HINT] : error.settled ? ['nothing was merged'] : [])], error.code);
    if (error instanceof SwapInterrupted) fail(['interrupted; the snapshots were left as they were'], signalExitCode(stopSignal ?? 'SIGINT'));
    fail([`${(error as Error).message}; the snapshots were left as they were`], 1);
  }
  swapping = false;

  const sections: ReportSection[] = [];
  const verdicts: Verdict[] = [];
  for (const group of ready.groups) {
    for (const run of group.runs) {
      const title = `${run.slug} (${[group.environment, run.variant].filter(Boolean).join(', ')}): run ${run.runId}`;
      const next = tryEvidence(run.slug, run.target, group.defs, run.variant);
      const changed = next.evidence ? whatChanged(previous.get(run.runId)!, runSide(next.evidence)) : undefined;
      // Snapshots whose facts no longer derive show something the article does not expect: a change in behaviour.
      verdicts.push(changed?.verdict ?? 'behaviour changed');
      const lines = changed ? [claimsReport(next.evidence!), ...changed.lines] : [`the merged snapshots do not derive the article's facts: ${next.problem}`];
      sections.push({ title, lines });
      say([`merged ${title} into ${relative(process.cwd(), run.target) || run.target}`, ...lines].join('\n'));
    }
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  say(`capture:merge: ${runs.length} run(s) of ${new Set(runs.map((r) => r.slug)).size} article(s) merged in ${seconds} s`);
  if (report) {
    const intro = [
      `${runs.length} run(s) merged by npm run capture:merge: each checked as the build checks it (facts derived, claims evaluated) and swapped into its article's snapshots.`,
      ...ready.notes,
    ];
    // The heading is the verdict of every run together; the capture workflow titles its pull request with it.
    try {
      writeReport(report, reportMarkdown(`Capture: ${overallVerdict(verdicts)}`, intro, sections), root);
    } catch (error) {
      // The merge succeeded: its exit code says so, whatever became of the report.
      say(
        `capture:merge: the runs are merged; the report could not be written to ${clip(report.file, 160)}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      );
    }
  }
}

try {
  await main();
} catch (error) {
  if (error instanceof ArticleFolderError) fail([error.message, 'nothing was merged'], 2);
  fail([`unexpected error: ${(error as Error).message ?? String(error)}`], 1);
}
