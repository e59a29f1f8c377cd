// A bar chart of measured shares, drawn at build time as inline SVG: each bar's
// length is a fact's exact value, each label that holds a value is that fact's
// bound element (data-fact), and a table holds the same values for screen
// readers (the SVG is hidden from them). Colours come from the page's CSS
// variables, so light and dark follow the site. Pure: the caller passes facts.
import type { Fact } from '../../evidence/facts.ts';
import type { Lang } from '../../evidence/template.ts';
import { escapeHtml, factHtml } from './fact-html.ts';

import type { ChartBar, ChartDef } from '../../authoring/parts.ts';

export type { ChartBar, ChartDef };

// One row per bar: its label, the pod's name under it (side by side they ran past
// the right edge at 375 px: x = 387 of 340), the bar below, the value after the
// bar. As wide as a phone's text column (343 px at 375 px), so the SVG is never
// scaled down there and its text stays at 13 px and more (evidence.css).
const W = 340;
const BAR_X = 0;
const BAR_MAX = 270;
const ROW = 64;
const HEAD = 30;

function fraction(fact: Fact, chart: string): number {
  const n = Number(fact.raw ?? fact.value);
  if (!Number.isFinite(n) || n < 0 || n > 1)
    throw new Error(`chart "${chart}": fact ${fact.id}: expected a fraction between 0 and 1 (its raw value), got "${fact.raw ?? fact.value}"`);
  return n;
}

/** `<text data-fact>`: the binding contract's markup inside SVG. */
function svgFact(fact: Fact, attrs: string): string {
  const raw = fact.raw === undefined ? '' : ` data-raw="${escapeHtml(fact.raw)}"`;
  return `<text ${attrs} data-fact="${escapeHtml(fact.id)}" data-step="${escapeHtml(fact.step)}"${raw}>${escapeHtml(fact.value)}</text>`;
}

export function chartHtml(def: ChartDef, facts: ReadonlyMap<string, Fact>, lang: Lang): string {
  const fact = (id: string): Fact => {
    const f = facts.get(id);
    if (!f) throw new Error(`chart "${def.id}": no fact "${id}" in this article's article.ts, nor one every run has`);
    return f;
  };
  const shares = def.groups.flatMap((g) =>
    g.bars.flatMap((b) => [fraction(fact(b.share), def.id), fraction(fact(b.expected), def.id) + fraction(fact(b.tolerance), def.id)]),
  );
  const top = Math.min(1, Math.max(...shares, 0.01) * 1.1);
  const x = (share: number) => BAR_X + (share / top) * BAR_MAX;
  const rows: string[] = [];
  let y = 0;
  for (const group of def.groups) {
    rows.push(`<text class="chart-group" x="0" y="${y + 20}">${escapeHtml(group.label[lang])}</text>`);
    y += HEAD;
    for (const bar of group.bars) {
      const share = fraction(fact(bar.share), def.id);
      const expected = fraction(fact(bar.expected), def.id);
      const tolerance = fraction(fact(bar.tolerance), def.id);
      const lo = x(Math.max(0, expected - tolerance));
      const hi = x(Math.min(1, expected + tolerance));
      rows.push(
        `<g class="chart-row">` +
          `<text class="chart-label" x="0" y="${y + 14}">${escapeHtml(bar.label[lang])}</text>` +
          svgFact(fact(bar.name), `class="chart-name" x="0" y="${y + 30}"`) +
          `<rect class="chart-band" x="${lo.toFixed(1)}" y="${y + 34}" width="${Math.max(1, hi - lo).toFixed(1)}" height="22" />` +
          `<rect class="chart-bar" x="${BAR_X}" y="${y + 38}" width="${(x(share) - BAR_X).toFixed(1)}" height="14" />` +
          `<line class="chart-expected" x1="${x(expected).toFixed(1)}" x2="${x(expected).toFixed(1)}" y1="${y + 32}" y2="${y + 58}" />` +
          svgFact(fact(bar.share), `class="chart-value" x="${(Math.max(x(share), hi) + 6).toFixed(1)}" y="${y + 50}"`) +
          `</g>`,
      );
      y += ROW;
    }
  }
  const titleId = `chart-${def.id}`;
  const cols = def.columns[lang];
  const table = [
    `<table class="visually-hidden"><caption>${escapeHtml(def.title[lang])}</caption>`,
    `<thead><tr>${cols.map((c) => `<th scope="col">${escapeHtml(c)}</th>`).join('')}</tr></thead>`,
    ...def.groups.map(
      (g) =>
        `<tbody><tr><th scope="rowgroup" colspan="${cols.length}">${escapeHtml(g.label[lang])}</th></tr>${g.bars
          .map(
            (b) =>
              `<tr><th scope="row">${escapeHtml(b.label[lang])}</th>${[b.name, b.count, b.share, b.expected, b.tolerance].map((id) => `<td>${factHtml(fact(id))}</td>`).join('')}</tr>`,
          )
          .join('')}</tbody>`,
    ),
    '</table>',
  ].join('');
  return (
    `<figure class="chart" data-chart="${escapeHtml(def.id)}" aria-labelledby="${titleId}">` +
    `<figcaption id="${titleId}" class="chart-title">${escapeHtml(def.title[lang])}</figcaption>` +
    `<svg class="chart-svg" viewBox="0 0 ${W} ${y}" width="100%" aria-hidden="true" focusable="false" preserveAspectRatio="xMinYMin meet">${rows.join('')}</svg>` +
    `<p class="chart-legend">${escapeHtml(def.legend[lang])}</p>` +
    table +
    `</figure>`
  );
}
