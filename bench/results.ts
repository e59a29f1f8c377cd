// The result file of one bench run (bench-results/<time>.json and latest.json):
// what ran where, and every figure. Its schema is checked when a file is read
// back for --compare, so an edited or foreign file fails with the field named.
import { z } from 'zod';
import { GROUPS, type Figure, type Summary } from './figures.ts';

export const RESULTS_SCHEMA_VERSION = 1;

export interface BenchResults {
  schema: typeof RESULTS_SCHEMA_VERSION;
  startedAt: string;
  finishedAt: string;
  durationSeconds: number;
  git: { commit: string | null; dirty: boolean };
  host: { os: string; arch: string; kernel: string; cpus: number; cpuModel: string; memoryGB: number; node: string };
  options: Record<string, unknown>;
  summary: Summary;
  figures: Figure[];
}

const targetSchema = z.strictObject({ op: z.enum(['<=', '==']), value: z.union([z.number(), z.boolean()]) });

export const figureSchema = z.strictObject({
  id: z.string().min(1),
  group: z.enum(GROUPS),
  label: z.string(),
  unit: z.enum(['x', 's', 'ms/page', 'ms/article', 'bytes', 'yes/no', 'count']),
  value: z.union([z.number(), z.boolean(), z.null()]),
  target: targetSchema.nullable(),
  meets: z.boolean().nullable(),
  status: z.enum(['measured', 'not measured']),
  reason: z.string().optional(),
  note: z.string().optional(),
  details: z.record(z.string(), z.unknown()).optional(),
});

export const resultsSchema = z
  .object({
    schema: z.literal(RESULTS_SCHEMA_VERSION),
    startedAt: z.string(),
    finishedAt: z.string(),
    figures: z.array(figureSchema),
  })
  .loose();

/** `2026-12-02T11:40:03.120Z` -> `2026-12-02T11-40-03Z.json`: sorts by time, no colons (Windows, URLs). */
export function resultFileName(startedAt: Date): string {
  return `${startedAt
    .toISOString()
    .replace(/\.\d+Z$/, 'Z')
    .replaceAll(':', '-')}.json`;
}

/** A result file's text -> its figures and times; errors name the file and the field. */
export function parseResults(text: string, file: string): z.infer<typeof resultsSchema> {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new Error(`${file}: not JSON (${(error as Error).message})`);
  }
  const result = resultsSchema.safeParse(data);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    throw new Error(
      `${file}: field "${issue.path.join('.') || '(top)'}": ${issue.message}; expected a result file of npm run bench (schema ${RESULTS_SCHEMA_VERSION})`,
    );
  }
  return result.data;
}
