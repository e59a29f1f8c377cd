// The counts at the end of a Playwright run ("  12 passed (8.3s)"), so the
// bench can say what the timed suite did. Pure.

export interface PlaywrightSummary {
  passed: number;
  failed: number;
  flaky: number;
  skipped: number;
  /** Playwright's own duration of the run, in seconds, when it printed one. */
  seconds: number | null;
}

const STRIP_ANSI = /\x1b\[[0-9;]*m/g;

export function parsePlaywrightSummary(output: string): PlaywrightSummary | null {
  const text = output.replace(STRIP_ANSI, '');
  const count = (word: string) => {
    const m = new RegExp(`^\\s*(\\d+) ${word}\\b`, 'm').exec(text);
    return m ? Number(m[1]) : 0;
  };
  const passedLine = /^\s*(\d+) passed(?: \(([\d.]+)(ms|s|m)\))?/m.exec(text);
  const summary = { passed: count('passed'), failed: count('failed'), flaky: count('flaky'), skipped: count('skipped') };
  if (!passedLine && summary.failed + summary.flaky + summary.skipped === 0) return null;
  const unit = { ms: 0.001, s: 1, m: 60 }[passedLine?.[3] ?? 's'] ?? 1;
  const seconds = passedLine?.[2] ? Number(passedLine[2]) * unit : null;
  return { ...summary, seconds };
}
