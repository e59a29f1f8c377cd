// `npm test`'s suites, and what it decides about each, as pure functions: the
// counts and skip reasons in node:test's TAP or Playwright's JSON report, the
// opt-out rules, the temporary folder's leftovers, the verdict and its line.
// scripts/test.ts is the edge that runs them; package.json's test:* scripts
// name a suite of this list by its word.

/** The variable naming the suites a run leaves out, e.g. `SHICE_TEST_OPTOUT=lab,fault,kind`. */
export const OPT_OUT_VARIABLE = 'SHICE_TEST_OPTOUT';

/** The suites CI (CI=true) always runs: an opt-out naming one of them fails there. */
export const MUST_RUN_ON_CI: readonly string[] = ['lab', 'fault', 'kind'];

/**
 * Names in the temporary folder that belong to a test: the project's own
 * (`shice-`: every test's mkdtemp, the lab's run folders), Playwright's
 * per-run artifacts and Chromium's profiles. Tools' deliberate caches
 * (playwright-transform-cache-*, node-compile-cache) are not leftovers.
 */
export const TEMP_PREFIXES: readonly string[] = ['shice-', 'playwright-artifacts-', '.org.chromium.Chromium.'];

export type ReportFormat = 'tap' | 'playwright' | null;

/**
 * Which of npm test's two lanes a suite runs in. The host lane's suites run as root and change the machine
 * while they run (network namespaces and their mount, a Docker engine, kind clusters, kernel settings), and
 * each compares the host before and after it: they run one after another. The machine lane's suites only
 * use the CPU, their own temporary folder and a port: they run beside the host lane, one after another too.
 */
export type Lane = 'host' | 'machine';

export interface Suite {
  /** The suite's name in `npm test -- <word>`, SHICE_TEST_OPTOUT and package.json's `test:<...>` script. */
  word: string;
  name: string;
  /** The command as shown; `argv(reportFile)` is what runs, writing its report there. */
  shown: string[];
  argv: (reportFile: string) => string[];
  report: ReportFormat;
  lane: Lane;
}

/** Every suite, each lane's in the order that fails fastest (the summary's order). */
export function suiteList(root: string, node: string): Suite[] {
  const astro = `${root}/node_modules/astro/bin/astro.mjs`;
  const nodeTest = (word: string, name: string, pattern: string, filesAtOnce: number, lane: Lane = 'machine'): Suite => {
    // Files side by side (each file's tests in order): most of a suite's time is waiting on processes,
    // control planes and clusters, not the CPU. Two at once on any machine; kind's, which share one engine
    // and one cluster name, one at a time.
    const args = [`--test-concurrency=${filesAtOnce}`, pattern];
    return {
      word,
      name,
      shown: ['node', '--test', ...args],
      // The spec reporter on the terminal, TAP into the report file for the counts and skip reasons.
      argv: (reportFile) => [
        node,
        '--test',
        '--test-reporter=spec',
        '--test-reporter-destination=stdout',
        '--test-reporter=tap',
        `--test-reporter-destination=${reportFile}`,
        ...args,
      ],
      report: 'tap',
      lane,
    };
  };
  const command = (word: string, name: string, argv: string[], lane: Lane = 'machine'): Suite => ({
    word,
    name,
    shown: argv.map((a) => (a === node ? 'node' : a.replace(`${root}/`, ''))),
    argv: () => argv,
    report: null,
    lane,
  });
  return [
    // The house's rules, fastest of all: one format (prettier, its files named by .prettierignore), and no import cycle or import back up the data flow.
    command('format', 'format (prettier --check)', [node, `${root}/node_modules/prettier/bin/prettier.cjs`, '--check', '--log-level=warn', '.']),
    command('imports', 'imports (no cycle, none against the data flow)', [node, `${root}/scripts/check-imports.ts`]),
    // Every GitHub Actions workflow, by actionlint built from tools/ (seconds cold, skipped when current) with shellcheck on its scripts; no workflow file fails.
    command('workflows', 'workflows (actionlint)', [node, `${root}/scripts/lint-workflows.ts`]),
    nodeTest('unit', 'unit (node:test)', 'tests/unit/**/*.test.ts', 2),
    command('types', 'types (astro check)', [node, astro, 'check']),
    // The lab runs the real Kubernetes components: built here when missing or stale (a cold build takes minutes).
    command('kube', 'Kubernetes binaries (npm run lab:build)', [node, `${root}/scripts/build-kube.ts`], 'host'),
    // Two labs at once are two sets of namespaces named after their runs; a file that kills runs on purpose keeps its own registry.
    nodeTest('lab', 'lab capture on this kernel (node:test)', 'tests/lab/**/*.test.ts', 2, 'host'),
    // Two fault files at a time: each keeps its own registry and project copy; its kill -9 tests let the commands a killed run had in flight end before they look.
    nodeTest(
      'fault',
      'faults: kill -9, SIGTERM and frozen components in real lab captures, concurrent captures (node:test)',
      'tests/fault/**/*.test.ts',
      2,
      'host',
    ),
    // Real kind clusters: kind:prepare's engine and images (built without a registry where none answers), a new article's
    // path from npm run new to its page, article 074's capture, and the host as it was before the engine started.
    nodeTest('kind', 'kind: a new article and article 074 on real kind clusters, the host as found (node:test)', 'tests/kind/**/*.test.ts', 1, 'host'),
    command('build', 'build (astro build)', [node, astro, 'build']),
    // What the build wrote, read as files: every run record against its snapshots, every link and card of every page.
    // Seconds, and no browser: the browser suite loads each article's pages once and one page of each template thoroughly.
    nodeTest('built', 'built site without a browser: run records against their snapshots, links, cards (node:test over dist/)', 'tests/built/**/*.test.ts', 1),
    // astro dev on a copy of the project: the real content/ is never written.
    nodeTest('dev', 'dev server: evidence checks on change (node:test, astro dev on a copy)', 'tests/dev/**/*.test.ts', 1),
    // Hostile input that needs no lab and no root: snapshot folders, MDX imports, output and merges killed midway, each in a copy of the project.
    nodeTest(
      'hostile',
      'hostile input: snapshots, MDX and public/ out of bounds, page output, merges killed midway (node:test, on copies)',
      'tests/hostile/**/*.test.ts',
      2,
    ),
    {
      word: 'browser',
      name: 'browser (Playwright, Chromium)',
      shown: ['playwright', 'test'],
      // The configured list reporter on the terminal, JSON (PLAYWRIGHT_JSON_OUTPUT_NAME) for the counts.
      // On this Node (24), not whatever `node` a PATH without node_modules/.bin finds first.
      argv: () => [node, `${root}/node_modules/@playwright/test/cli.js`, 'test', '--reporter=list,json'],
      report: 'playwright',
      lane: 'machine',
    },
  ];
}

/**
 * The suites `npm test -- <word>...` runs: those whose word is one of the
 * words, else those whose name contains one; a word that selects nothing is a
 * problem line.
 */
export function selectSuites(suites: Suite[], words: string[]): { suites: Suite[] } | { problem: string } {
  if (words.length === 0) return { suites };
  for (const word of words) {
    if (!suites.some((s) => s.word === word || s.name.includes(word))) {
      return { problem: `npm test: no suite matches "${word}"; the suites: ${suites.map((s) => s.word).join(', ')}` };
    }
  }
  return { suites: suites.filter((s) => words.some((w) => (suites.some((x) => x.word === w) ? s.word === w : s.name.includes(w)))) };
}

/** The suites SHICE_TEST_OPTOUT leaves out, or the one line saying why it cannot. */
export function optedOutSuites(value: string | undefined, words: readonly string[], onCI: boolean): { optedOut: Set<string> } | { problem: string } {
  const named = (value ?? '')
    .split(',')
    .map((w) => w.trim())
    .filter((w) => w !== '');
  const unknown = named.filter((w) => !words.includes(w));
  if (unknown.length > 0)
    return {
      problem: `${OPT_OUT_VARIABLE}: ${unknown.map((w) => `"${w}"`).join(', ')} names no suite; expected a comma-separated list of: ${words.join(', ')}`,
    };
  const refused = named.filter((w) => onCI && MUST_RUN_ON_CI.includes(w));
  if (refused.length > 0)
    return {
      problem: `${OPT_OUT_VARIABLE} names ${refused.join(', ')}, but on CI (CI=true) the ${MUST_RUN_ON_CI.join(', ')} suites must run: remove ${refused.length > 1 ? 'them' : 'it'} from ${OPT_OUT_VARIABLE}`,
    };
  return { optedOut: new Set(named) };
}

export interface Counts {
  passed: number;
  failed: number;
  skipped: number;
}

export interface Report {
  counts: Counts;
  /** Why tests skipped, each reason once, in the order first seen. */
  skipReasons: string[];
}

const NO_REASON = '(no reason given)';

/** node:test's TAP: the closing counts and every `# SKIP reason`; null when the run ended before its counts. */
export function tapReport(tap: string): Report | null {
  const count = (key: string) => {
    const found = new RegExp(`^# ${key} (\\d+)$`, 'm').exec(tap);
    return found ? Number(found[1]) : null;
  };
  const [pass, fail, cancelled, skipped] = [count('pass'), count('fail'), count('cancelled'), count('skipped')];
  if (pass === null || fail === null || skipped === null) return null;
  const reasons: string[] = [];
  for (const line of tap.split('\n')) {
    // The directive follows the first unescaped `#` of a test point (a `#` in a name or reason is written `\#`).
    const directive = /^\s*(?:not )?ok \d+ (?:[^#\\]|\\.)*?# SKIP(?: (.*))?$/.exec(line);
    if (directive) reasons.push(directive[1]?.replaceAll('\\#', '#').trim() || NO_REASON);
  }
  return { counts: { passed: pass, failed: fail + (cancelled ?? 0), skipped }, skipReasons: [...new Set(reasons)] };
}

interface PlaywrightSuite {
  suites?: PlaywrightSuite[];
  specs?: { tests?: { status?: string; annotations?: { type: string; description?: string }[] }[] }[];
}

/** Playwright's JSON report: its stats (flaky tests passed on a retry) and the reason of every skipped test; null when it is not one. */
export function playwrightReport(json: string): Report | null {
  let report: { stats?: Record<string, unknown>; suites?: PlaywrightSuite[] };
  try {
    report = JSON.parse(json) as typeof report;
  } catch {
    return null;
  }
  const stats = report.stats ?? {};
  const number = (key: string) => (typeof stats[key] === 'number' ? (stats[key] as number) : null);
  const [expected, unexpected, flaky, skipped] = [number('expected'), number('unexpected'), number('flaky'), number('skipped')];
  if (expected === null || unexpected === null || skipped === null) return null;
  const reasons: string[] = [];
  const walk = (suite: PlaywrightSuite) => {
    for (const spec of suite.specs ?? []) {
      for (const test of spec.tests ?? []) {
        if (test.status !== 'skipped') continue;
        const skip = test.annotations?.find((a) => a.type === 'skip');
        reasons.push(skip?.description?.trim() || NO_REASON);
      }
    }
    for (const inner of suite.suites ?? []) walk(inner);
  };
  for (const suite of report.suites ?? []) walk(suite);
  return { counts: { passed: expected + (flaky ?? 0), failed: unexpected, skipped }, skipReasons: [...new Set(reasons)] };
}

/** Entries of the temporary folder a suite left: there after it, not before, with a test's prefix (tools' caches are not). */
export function tempLeftovers(before: readonly string[], after: readonly string[]): string[] {
  const earlier = new Set(before);
  return after.filter((name) => !earlier.has(name) && TEMP_PREFIXES.some((p) => name.startsWith(p))).sort();
}

export interface SuiteOutcome {
  /** The exit code, or the signal that ended the suite, or the error that kept it from starting. */
  ended: { code: number } | { signal: string } | { error: string };
  /** What its report said: null when it wrote none or none that reads; undefined for a suite without one. */
  report: Report | null | undefined;
  /** What it left in the temporary folder. */
  leftovers: string[];
  /** What it left changed on the host, that was not so before it (a mount). */
  hostLeftovers?: string[];
}

export interface Verdict {
  ok: boolean;
  /** What the summary says after the suite's name. */
  detail: string;
}

const countsText = ({ passed, failed, skipped }: Counts) => `${passed} passed, ${failed} failed, ${skipped} skipped`;

/**
 * A suite passes when it exited 0, every one of its tests ran (a skip is a
 * prerequisite that was missing: such a suite did not run, and fails) and it
 * left nothing in the temporary folder.
 */
export function judgeSuite(outcome: SuiteOutcome): Verdict {
  const problems: string[] = [];
  const { ended, report, leftovers } = outcome;
  if ('error' in ended) problems.push(`could not start: ${ended.error}`);
  else if ('signal' in ended) problems.push(`ended by ${ended.signal}`);
  else if (ended.code !== 0) problems.push(`exit ${ended.code}`);
  const parts: string[] = [];
  if (report === null) problems.push('did not run: it wrote no test report');
  else if (report !== undefined) {
    const { counts, skipReasons } = report;
    parts.push(countsText(counts));
    const total = counts.passed + counts.failed + counts.skipped;
    if (total === 0) problems.push('did not run: no test ran');
    else if (counts.skipped === total) problems.push('did not run: every test skipped');
    else if (counts.skipped > 0) problems.push(`incomplete: ${counts.skipped} of ${total} tests skipped`);
    if (skipReasons.length > 0) parts.push(`skipped because: ${skipReasons.join('; ')}`);
  }
  if (leftovers.length > 0) problems.push(`left in the temporary folder: ${leftovers.join(', ')}`);
  if ((outcome.hostLeftovers ?? []).length > 0) problems.push(`left on the host: ${outcome.hostLeftovers!.join(', ')}`);
  return { ok: problems.length === 0, detail: [...problems, ...parts].join('; ') };
}

/** The summary's line for a suite the run left out. */
export const optedOutDetail = `skipped (opted out by ${OPT_OUT_VARIABLE})`;
