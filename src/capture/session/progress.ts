// What the author sees while a capture runs: one line per step as it goes (a
// live, ticking line on a terminal; plain lines in logs and CI) and a summary.
import type { StepDef } from '../../experiment/types.ts';
import type { StepSnapshot } from '../../evidence/schema.ts';
import type { CaptureReporter } from './runner.ts';

export function formatSeconds(ms: number): string {
  return `${(ms / 1000).toFixed(2)} s`;
}

const counter = (index: number, total: number) => `[${String(index + 1).padStart(String(total).length)}/${total}]`;

export function formatStepRunning(step: StepDef, node: string, index: number, total: number, elapsedMs: number): string {
  return `${counter(index, total)} ${step.id} on ${node} … ${formatSeconds(elapsedMs)}`;
}

export function formatStepDone(s: StepSnapshot, index: number, total: number): string {
  return `${counter(index, total)} ${s.id} on ${s.node}: exit ${s.exitCode} in ${formatSeconds(s.durationMs)}`;
}

export function formatSummary(slug: string, target: string, steps: StepSnapshot[], totalMs: number): string {
  const slowest = [...steps].sort((a, b) => b.durationMs - a.durationMs)[0];
  const stepsMs = steps.reduce((sum, s) => sum + s.durationMs, 0);
  const lines = [
    `${slug}: ${steps.length} steps captured in ${formatSeconds(totalMs)} (steps ${formatSeconds(stepsMs)}, setup and teardown ${formatSeconds(totalMs - stepsMs)})`,
  ];
  if (slowest) lines.push(`  slowest step: ${slowest.id} (${formatSeconds(slowest.durationMs)}, exit ${slowest.exitCode})`);
  lines.push(`  snapshots: ${target}`);
  return lines.join('\n');
}

interface Output {
  isTTY?: boolean;
  write(chunk: string): unknown;
}

export function createReporter(out: Output, clock: () => number = () => performance.now()): CaptureReporter & { close(): void } {
  const live = Boolean(out.isTTY);
  let timer: ReturnType<typeof setInterval> | null = null;
  let liveLine = '';

  const clearLive = () => {
    if (timer) clearInterval(timer);
    timer = null;
    if (live && liveLine) out.write('\r\x1b[2K');
    liveLine = '';
  };

  return {
    phase(line) {
      clearLive();
      out.write(`· ${line}\n`);
    },
    stepStarted(step, index, total, node) {
      clearLive();
      if (!live) return;
      const started = clock();
      const draw = () => {
        liveLine = formatStepRunning(step, node, index, total, clock() - started);
        out.write(`\r\x1b[2K${liveLine}`);
      };
      draw();
      timer = setInterval(draw, 100);
      timer.unref?.();
    },
    stepFinished(snapshot, index, total) {
      clearLive();
      out.write(`${formatStepDone(snapshot, index, total)}\n`);
    },
    close: clearLive,
  };
}
