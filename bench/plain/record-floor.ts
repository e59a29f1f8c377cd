// The floor of a run record: the same raw output as Astro alone would show it,
// a Markdown file of fenced code blocks (highlighted by Astro's own shiki, in the
// languages the record page uses) and two plain tables, the steps and the tool
// versions. Nothing is bound or checked. Pure.
import { outputBlocks } from '../../src/article/render/raw-output.ts';
import type { RunSnapshot, StepSnapshot } from '../../src/evidence/schema.ts';

/** A fence longer than any run of backticks in `code`, so the code cannot end it. */
function fenced(code: string, lang: string): string {
  const longest = Math.max(2, ...[...code.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${lang}\n${code.endsWith('\n') ? code : `${code}\n`}${fence}`;
}

/** A table cell: no line break, no unescaped pipe. */
const cell = (text: string) => text.replace(/\s+/g, ' ').replaceAll('|', '\\|');

/** The record's Markdown: the run's id, one table row per step, each step's argv and output, the versions. */
export function recordFloorMarkdown(run: RunSnapshot, steps: readonly StepSnapshot[]): string {
  const rows = steps.map((s) => `| ${cell(s.id)} | ${cell(s.node)} | ${s.exitCode} | ${(s.durationMs / 1000).toFixed(2)} | ${cell(s.startedAt)} |`);
  const outputs = steps.flatMap((s) => [
    `### ${s.id}`,
    '',
    fenced(s.command.join(' '), 'text'),
    '',
    ...outputBlocks(s).flatMap((block) => [`${block.stream}:`, '', fenced(block.code, block.lang), '']),
  ]);
  const versions = Object.entries(run.versions).map(([tool, version]) => `| ${cell(tool)} | ${cell(version)} |`);
  return [
    `Run \`${run.runId}\`, ${run.driver}, ${run.startedAt} to ${run.finishedAt}.`,
    '',
    '## Steps',
    '',
    '| step | node | exit | seconds | started |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
    '',
    '## Outputs',
    '',
    ...outputs,
    '## Versions',
    '',
    '| tool | version |',
    '| --- | --- |',
    ...versions,
    '',
  ].join('\n');
}
