// The packet's path in the browser: article 074's five paths, drawn by the
// renderer the build uses (src/article/render/packet-path.ts) from the facts of
// the committed snapshots, on a page with the site's own stylesheets and an
// article's layout (the MDX of 074 does not use the component yet, so the
// spec sets the page's content itself rather than visiting the built site).
// At 375 and 1280 px no text is drawn below 12 px nor outside the drawing, the
// colours follow the light and dark schemes, every bound value is its fact's,
// and a screen reader gets the list, not the SVG.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { packetPathHtml } from '../../src/article/render/packet-path.ts';
import { article074 } from '../support/articles.ts';
import { ROOT, committedSnapshots, deriveEvidence } from './support/evidence.ts';

const { paths, file: FILE } = article074;
const { facts } = deriveEvidence(committedSnapshots);
// The stylesheets an article page loads (BaseLayout's, ArticleBody's, the component's), as the source holds them.
const CSS = ['global.css', 'evidence.css', 'packet-path.css'].map((f) => readFileSync(join(ROOT, 'src/styles', f), 'utf8')).join('\n');
const LANGS = ['zh', 'en'] as const;

/** An article page's frame around every path of 074, in one language. */
function pageHtml(lang: (typeof LANGS)[number]): string {
  const htmlLang = lang === 'zh' ? 'zh-CN' : 'en';
  const figures = paths.map((def) => packetPathHtml(def, facts, lang, { file: FILE })).join('\n');
  return (
    `<!doctype html><html lang="${htmlLang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<style>${CSS}</style></head><body><main id="main"><article class="article-body" lang="${htmlLang}">${figures}</article></main></body></html>`
  );
}

async function open(page: Page, lang: (typeof LANGS)[number], width: number, colorScheme: 'light' | 'dark' = 'light'): Promise<void> {
  await page.setViewportSize({ width, height: 900 });
  await page.emulateMedia({ colorScheme });
  await page.setContent(pageHtml(lang));
  await expect(page.locator('figure.packet-path')).toHaveCount(paths.length);
}

for (const lang of LANGS) {
  for (const width of [375, 1280]) {
    test(`${lang} at ${width} px: no text of a path is drawn below 12 px, none outside its drawing, the page never scrolls sideways`, async ({ page }) => {
      await open(page, lang, width);
      const report = await page.locator('svg.packet-path-svg').evaluateAll((svgs) =>
        svgs.map((svg) => {
          const box = svg.getBoundingClientRect();
          // The SVG is scaled to its box: a text's size on screen is its font size times that scale.
          const scale = box.width / (svg as SVGSVGElement).viewBox.baseVal.width;
          const texts = [...svg.querySelectorAll('text')];
          return {
            path: svg.closest('figure')!.getAttribute('data-packet-path'),
            count: texts.length,
            small: [...svg.querySelectorAll('text, tspan')]
              .map((t) => ({ text: t.textContent ?? '', px: parseFloat(getComputedStyle(t).fontSize) * scale }))
              .filter((t) => t.px < 12)
              .map((t) => `${t.text} (${t.px.toFixed(1)} px)`),
            outside: texts
              .map((t) => ({ text: t.textContent ?? '', r: t.getBoundingClientRect() }))
              .filter(({ r }) => r.left < box.left - 0.5 || r.right > box.right + 0.5 || r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5)
              .map(({ text, r }) => `${text} (${r.left.toFixed(0)}..${r.right.toFixed(0)} of ${box.left.toFixed(0)}..${box.right.toFixed(0)})`),
          };
        }),
      );
      expect(report.map((r) => r.path)).toEqual(paths.map((p) => p.id));
      for (const r of report) {
        expect(r.count, `${r.path}: text drawn`).toBeGreaterThan(6);
        expect(r.small, `${r.path}: text below 12 px`).toEqual([]);
        expect(r.outside, `${r.path}: text past the edge of its drawing`).toEqual([]);
      }
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    });
  }
}

test('the colours follow the light and dark schemes: text, arrows, boxes and the drop from the page’s variables', async ({ page }) => {
  const seen: string[] = [];
  for (const colorScheme of ['light', 'dark'] as const) {
    await open(page, 'en', 375, colorScheme);
    const colours = await page.evaluate(() => {
      // What each variable resolves to in this scheme, read through an element of the page.
      const probe = document.createElement('span');
      document.body.append(probe);
      const resolve = (name: string) => {
        probe.style.color = `var(${name})`;
        return getComputedStyle(probe).color;
      };
      const vars = {
        fg: resolve('--fg'),
        accent: resolve('--accent'),
        raised: resolve('--bg-raised'),
        focus: resolve('--focus'),
        muted: resolve('--fg-muted'),
      };
      probe.remove();
      const style = (selector: string) => getComputedStyle(document.querySelector(selector)!);
      return {
        vars,
        body: getComputedStyle(document.body).color,
        label: style('figure[data-packet-path="cluster-via-worker2"] text.pp-label').fill,
        value: style('figure[data-packet-path="cluster-via-worker2"] g.pp-hop tspan[data-fact]').fill,
        arrow: style('figure[data-packet-path="cluster-via-worker2"] line.pp-arrow').stroke,
        head: style('figure[data-packet-path="cluster-via-worker2"] polygon.pp-arrowhead').fill,
        box: style('figure[data-packet-path="cluster-via-worker2"] g.pp-station:not(.pp-idle) rect.pp-box').fill,
        edge: style('figure[data-packet-path="cluster-via-worker2"] g.pp-station:not(.pp-idle) rect.pp-box').stroke,
        drop: style('figure[data-packet-path="local-via-worker2"] text.pp-event-drop').fill,
        dropValue: style('figure[data-packet-path="local-via-worker2"] text.pp-event-drop tspan[data-fact]').fill,
        idle: style('figure[data-packet-path="local-via-worker2"] g.pp-idle text.pp-label').fill,
      };
    });
    const { vars } = colours;
    expect(colours.label, colorScheme).toBe(colours.body);
    expect(colours.label, colorScheme).toBe(vars.fg);
    expect(colours.value, colorScheme).toBe(vars.fg);
    expect([colours.arrow, colours.head], colorScheme).toEqual([vars.accent, vars.accent]);
    expect([colours.box, colours.edge], colorScheme).toEqual([vars.raised, vars.muted]);
    expect([colours.drop, colours.dropValue], colorScheme).toEqual([vars.focus, vars.focus]);
    expect(colours.idle, colorScheme).toBe(vars.muted);
    seen.push(`${colours.label} ${colours.arrow} ${colours.box} ${colours.drop}`);
  }
  expect(seen[0]).not.toBe(seen[1]);
});

for (const lang of LANGS) {
  test(`${lang}: every bound value of every path is its fact's, and a screen reader gets the list, not the drawing`, async ({ page }) => {
    await open(page, lang, 375);
    const bound = await page.$$eval('[data-fact]', (els) =>
      els.map((el) => ({
        id: el.getAttribute('data-fact')!,
        step: el.getAttribute('data-step'),
        raw: el.getAttribute('data-raw'),
        text: el.textContent,
        inSvg: el.closest('svg') !== null,
      })),
    );
    expect(bound.filter((b) => b.inSvg).length).toBeGreaterThan(40);
    for (const b of bound) {
      const fact = facts.get(b.id);
      expect(fact, `data-fact="${b.id}" is a fact of the run`).toBeTruthy();
      expect([b.text, b.step, b.raw], b.id).toEqual([fact!.value, fact!.step, fact!.raw ?? null]);
    }
    for (const def of paths) {
      const figure = page.locator(`figure[data-packet-path="${def.id}"]`);
      await expect(figure.locator('svg')).toHaveAttribute('aria-hidden', 'true');
      const list = figure.locator('ol.packet-path-steps').first();
      // Out of sight, not out of the accessibility tree.
      const box = (await list.boundingBox())!;
      expect(box.width * box.height, def.id).toBeLessThanOrEqual(1);
      const svgIds = await figure.locator('svg [data-fact]').evaluateAll((els) => els.map((e) => e.getAttribute('data-fact')).sort());
      const listIds = await list.locator('[data-fact]').evaluateAll((els) => els.map((e) => e.getAttribute('data-fact')).sort());
      expect(listIds, `${def.id}: the list holds the drawing's values`).toEqual(svgIds);
      // The first hop as a screen reader hears it: once, from the list (the drawing says it too, hidden).
      const hop = def.legs[0]!.hops[0]!;
      const endpoint = (e: { address: string; port?: string }) => facts.get(e.address)!.value + (e.port ? `:${facts.get(e.port)!.value}` : '');
      const heard = `src ${endpoint(hop.src!)}`;
      const tree = await figure.ariaSnapshot();
      const said = def.legs.flatMap((leg) => leg.hops).filter((h) => h.src && `src ${endpoint(h.src)}`.includes(heard)).length;
      expect(tree.split(heard).length - 1, `${def.id}: "${heard}" in the accessibility tree`).toBe(said);
      expect(await figure.locator('svg').innerHTML()).toContain(`>${facts.get(hop.src!.address)!.value}</tspan>`);
    }
  });
}
