// One figure per thing the bench measures: its value, its target, whether it
// meets it, or why it could not be measured. Pure: building, judging and
// formatting figures; the phases that measure live in bench/measure/.

export const GROUPS = ['weight', 'e2e', 'binding', 'growth', 'merge', 'lab', 'kind', 'tests'] as const;
export type Group = (typeof GROUPS)[number];

/** How a value is stored and shown: bytes are shown in KB (1 KB = 1024 bytes). */
export type Unit = 'x' | 's' | 'ms/page' | 'ms/article' | 'bytes' | 'yes/no' | 'count';

export interface Target {
  op: '<=' | '==';
  value: number | boolean;
}

export interface Figure {
  id: string;
  group: Group;
  label: string;
  unit: Unit;
  value: number | boolean | null;
  target: Target | null;
  /** null when there is no target or nothing was measured. */
  meets: boolean | null;
  status: 'measured' | 'not measured';
  /** Why nothing was measured. */
  reason?: string;
  /** A few words shown after the value (e.g. the parts of a sum). */
  note?: string;
  /** Everything behind the value, for the JSON file. */
  details?: Record<string, unknown>;
}

export function judge(value: number | boolean, target: Target | null): boolean | null {
  if (!target) return null;
  if (target.op === '==') return value === target.value;
  if (typeof value !== 'number' || typeof target.value !== 'number') {
    throw new Error(`judge: "<=" compares numbers, got ${typeof value} and ${typeof target.value}`);
  }
  return value <= target.value;
}

export function measured(
  base: { id: string; group: Group; label: string; unit: Unit; target?: Target | null },
  value: number | boolean,
  extra: { note?: string; details?: Record<string, unknown> } = {},
): Figure {
  if (typeof value === 'number' && !Number.isFinite(value)) {
    throw new Error(`figure ${base.id}: expected a finite value, got ${value}`);
  }
  const target = base.target ?? null;
  return {
    id: base.id,
    group: base.group,
    label: base.label,
    unit: base.unit,
    value,
    target,
    meets: judge(value, target),
    status: 'measured',
    ...(extra.note ? { note: extra.note } : {}),
    ...(extra.details ? { details: extra.details } : {}),
  };
}

export function notMeasured(
  base: { id: string; group: Group; label: string; unit: Unit; target?: Target | null },
  reason: string,
  details?: Record<string, unknown>,
): Figure {
  return {
    id: base.id,
    group: base.group,
    label: base.label,
    unit: base.unit,
    value: null,
    target: base.target ?? null,
    meets: null,
    status: 'not measured',
    reason,
    ...(details ? { details } : {}),
  };
}

export function formatValue(value: number | boolean, unit: Unit): string {
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  switch (unit) {
    case 'x':
      return `${value.toFixed(2)}x`;
    case 's':
      return `${value.toFixed(1)} s`;
    case 'ms/page':
      return `${value.toFixed(1)} ms/page`;
    case 'ms/article':
      return `${value.toFixed(1)} ms/article`;
    case 'bytes':
      return `${(value / 1024).toFixed(1)} KB`;
    case 'count':
      return String(Math.round(value));
    case 'yes/no':
      return value ? 'yes' : 'no';
  }
}

export function formatTarget(target: Target, unit: Unit): string {
  return `${target.op === '==' ? '' : '<= '}${formatValue(target.value, unit)}`;
}

function verdict(figure: Figure): string {
  if (figure.status === 'not measured') return `not measured: ${figure.reason ?? 'no reason given'}`;
  if (figure.meets === null) return '';
  return figure.meets ? 'meets' : 'MISSES';
}

/** One line per figure, columns aligned to `labelWidth`. */
export function formatFigureLine(figure: Figure, labelWidth = 0): string {
  const label = figure.label.padEnd(labelWidth);
  const value = figure.value === null ? '—' : formatValue(figure.value, figure.unit);
  const target = figure.target ? `target ${formatTarget(figure.target, figure.unit)}` : '';
  const cells = [`${label}  ${value.padStart(14)}`, target.padEnd(18), verdict(figure)];
  if (figure.note) cells.push(`(${figure.note})`);
  return cells.join('  ').trimEnd();
}

export function formatFigures(figures: readonly Figure[]): string[] {
  const width = Math.max(0, ...figures.map((f) => f.label.length));
  return figures.map((f) => formatFigureLine(f, width));
}

export interface Summary {
  measured: number;
  notMeasured: number;
  meetTarget: number;
  missTarget: number;
}

export function summarize(figures: readonly Figure[]): Summary {
  return {
    measured: figures.filter((f) => f.status === 'measured').length,
    notMeasured: figures.filter((f) => f.status === 'not measured').length,
    meetTarget: figures.filter((f) => f.meets === true).length,
    missTarget: figures.filter((f) => f.meets === false).length,
  };
}

/**
 * The bench reports, it does not assert: a missed target still exits 0. It
 * fails only when a figure could not be measured, except in groups the user
 * chose to skip (their figures say so).
 */
export function exitCodeFor(figures: readonly Figure[], skippedGroups: ReadonlySet<Group> = new Set()): 0 | 1 {
  return figures.some((f) => f.status === 'not measured' && !skippedGroups.has(f.group)) ? 1 : 0;
}
