// Two bench runs side by side, figure by figure (matched by id): the change
// in value, and any figure that started or stopped meeting its target. Pure.
import { formatValue, type Figure, type Unit } from './figures.ts';

export interface ComparisonRow {
  id: string;
  label: string;
  before: Figure | null;
  after: Figure | null;
}

/** Every figure of either run, in the newer run's order, then those only the older run has. */
export function compareResults(before: readonly Figure[], after: readonly Figure[]): ComparisonRow[] {
  const old = new Map(before.map((f) => [f.id, f]));
  const rows: ComparisonRow[] = after.map((f) => ({ id: f.id, label: f.label, before: old.get(f.id) ?? null, after: f }));
  const seen = new Set(after.map((f) => f.id));
  for (const f of before) if (!seen.has(f.id)) rows.push({ id: f.id, label: f.label, before: f, after: null });
  return rows;
}

function shown(figure: Figure | null): string {
  if (!figure) return 'absent';
  if (figure.status === 'not measured' || figure.value === null) return 'not measured';
  return formatValue(figure.value, figure.unit);
}

/** The change from one value to the next, in the figure's unit, with the relative change. */
export function describeChange(before: number | boolean | null, after: number | boolean | null, unit: Unit): string {
  if (before === null || after === null) return '';
  if (typeof before === 'boolean' || typeof after === 'boolean') return before === after ? 'same' : 'changed';
  const delta = after - before;
  if (delta === 0) return 'same';
  const sign = delta > 0 ? '+' : '-';
  const size = formatValue(Math.abs(delta), unit);
  return before === 0 ? `${sign}${size}` : `${sign}${size} (${sign}${Math.abs((delta / before) * 100).toFixed(1)}%)`;
}

function verdictChange(row: ComparisonRow): string {
  const b = row.before?.meets ?? null;
  const a = row.after?.meets ?? null;
  if (b === a || a === null || b === null) return '';
  return a ? 'now meets its target' : 'no longer meets its target';
}

export function formatComparison(rows: readonly ComparisonRow[]): string[] {
  const width = Math.max(0, ...rows.map((r) => r.label.length));
  return rows.map((row) => {
    const unit = (row.after ?? row.before)!.unit;
    const change = describeChange(row.before?.value ?? null, row.after?.value ?? null, unit);
    const cells = [row.label.padEnd(width), shown(row.before).padStart(14), '->', shown(row.after).padStart(14), change, verdictChange(row)];
    return cells
      .filter((c, i) => i < 4 || c !== '')
      .join('  ')
      .trimEnd();
  });
}
