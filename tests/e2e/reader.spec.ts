// What a reader's review of the site (issue 35) found, checked on the built pages:
// the days an article was published and measured, rules and commands set as code
// and broken only between their tokens, charts that fit a phone, no English
// left untranslated on a Chinese page, named step outputs, the claim matrix's
// cells and the marks of values that are not measurements.
import { expect, test } from '@playwright/test';
import { articlePathOf, LANGS } from './support/articles.ts';
import { articleTemplates, drawingTemplate, marksTemplate, recordTemplates } from './support/templates.ts';
import { committedSnapshots, deriveRuns, HEADLINE_074, SLUG, type DerivedEvidence, type Runs074, type Variant074 } from './support/evidence.ts';
import { article074 } from '../support/articles.ts';
import { headlineVersion } from '../../src/experiment/kubernetes.ts';

const HEADLINE_VERSION = headlineVersion(article074.experiment).minor;

// The sweeps below visit one page of each template, chosen by measuring the built pages for what stresses it
// (support/templates.ts), in both languages; each page's values and words about itself are checked page by page
// in pages.spec.ts, each run record's against its snapshots in tests/built.
const chosenArticles = LANGS.flatMap((lang) => articleTemplates(lang));
const chosenRecords = LANGS.flatMap((lang) => recordTemplates(lang).map((c) => ({ ...c, lang })));
/** The article and record pages a reader reaches, as chosen. */
const readerPages = [...chosenArticles, ...chosenRecords].map((c) => c.path);

test.describe('rules, commands and outputs are code, broken only between their tokens', () => {
  for (const path of readerPages) {
    test(`${path} at 375 px`, async ({ page }) => {
      await page.setViewportSize({ width: 375, height: 800 });
      await page.goto(path);
      await page.locator('details').evaluateAll((ds) => ds.forEach((d) => ((d as HTMLDetailsElement).open = true)));
      const found = await page.$$eval('main [data-fact].code', (els) => {
        const mono = getComputedStyle(document.querySelector('pre') ?? document.body).fontFamily;
        /**
         * Each token of the value's text (between whitespace), as the reader sees it: drawn on more than one
         * line is broken, unless its box is as wide as the whole line (a token wider than a phone: the last resort).
         */
        const brokenTokens = (el: Element): string[] => {
          const texts: Text[] = [];
          const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
          for (let n = walker.nextNode(); n; n = walker.nextNode()) texts.push(n as Text);
          const broken: string[] = [];
          for (const text of texts) {
            for (const m of text.data.matchAll(/\S+/g)) {
              const range = document.createRange();
              range.setStart(text, m.index);
              range.setEnd(text, m.index + m[0].length);
              const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
              if (lines.size <= 1) continue;
              const box = text.parentElement!.closest('.tok') ?? el;
              const line = box.parentElement!.closest('pre, li, p, td, dd, div, h3')!;
              const style = getComputedStyle(line);
              const room = line.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
              if (box.getBoundingClientRect().width < room - 1) broken.push(m[0]);
            }
          }
          return broken;
        };
        // A step's raw output and an excerpt of it are blocks that scroll or hang their lines; the argv as executed wraps.
        // A list for screen readers only (a packet path's) is read out, never laid out.
        return els
          .filter((el) => (!el.closest('pre') || el.closest('.argv-block')) && !el.closest('.visually-hidden'))
          .map((el) => ({
            id: el.getAttribute('data-fact')!,
            monospace: getComputedStyle(el).fontFamily === mono,
            // A token with a hyphen, slash or bracket (where a browser would break) is kept whole by a box of its own.
            loose: [...el.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE && /[^\s\p{L}\p{N}._:=,;]/u.test(n.textContent!)).map((n) => n.textContent),
            broken: brokenTokens(el),
          }));
      });
      // 075's prose binds no rule; every run record binds its argv, 074 its rules.
      if (/\/run\/|074/.test(path)) expect(found.length, 'the page binds rules, commands or outputs').toBeGreaterThan(0);
      expect(
        found.filter((f) => !f.monospace).map((f) => f.id),
        'set in the code font',
      ).toEqual([]);
      expect(
        found.filter((f) => f.loose.length).map((f) => `${f.id}: ${f.loose.join(' | ')}`),
        'every token that could break is kept whole',
      ).toEqual([]);
      expect(
        found.filter((f) => f.broken.length).map((f) => `${f.id}: ${f.broken.join(' | ')}`),
        'no token broken inside',
      ).toEqual([]);
    });
  }

  test('the DROP rule of worker2’s filter table is code in its measured line, "-j DROP" on one line', async ({ page }) => {
    await page.setViewportSize({ width: 375, height: 800 });
    await page.goto(articlePathOf('zh', '074-external-traffic-policy'));
    const rule = page.locator('figure[data-measured] li[data-step="iptables-worker2"] [data-fact="iptables-worker2.dropRule"]');
    await expect(rule).toHaveClass(/\bcode\b/);
    expect(await rule.evaluate((el) => el.getClientRects().length), 'it wraps over lines').toBeGreaterThan(1);
    const jump = rule.locator('.tok', { hasText: /^-j DROP$/ });
    expect(await jump.evaluate((el) => el.getClientRects().length)).toBe(1);
  });
});

test.describe('charts and packet paths fit a phone', () => {
  for (const { path } of LANGS.map(drawingTemplate)) {
    test(`${path} at 375 px: no text of a chart or packet path runs outside its SVG`, async ({ page }) => {
      await page.setViewportSize({ width: 375, height: 800 });
      await page.goto(path);
      const figures = await page.$$eval('figure[data-chart] svg, figure[data-packet-path] svg', (svgs) =>
        svgs.map((svg) => {
          const box = svg.getBoundingClientRect();
          const view = (svg as SVGSVGElement).viewBox.baseVal;
          const scale = box.width / view.width;
          const outside = [...svg.querySelectorAll('text')].flatMap((text) => {
            // On screen, and in the SVG's own units (what the reader reported: x = 387 in a viewBox 340 wide).
            const r = text.getBoundingClientRect();
            const right = view.x + (r.right - box.left) / scale;
            const bottom = view.y + (r.bottom - box.top) / scale;
            const fits = r.left >= box.left - 0.5 && r.right <= box.right + 0.5 && r.top >= box.top - 0.5 && r.bottom <= box.bottom + 0.5;
            return fits ? [] : [`"${text.textContent}" reaches x = ${right.toFixed(0)}, y = ${bottom.toFixed(0)} of ${view.width} × ${view.height}`];
          });
          return {
            figure: svg.closest('figure')!.getAttribute('data-chart') ?? svg.closest('figure')!.getAttribute('data-packet-path'),
            inViewport: box.right <= innerWidth,
            outside,
          };
        }),
      );
      expect(figures.length, 'the article draws a chart or a packet path').toBeGreaterThan(0);
      for (const f of figures) {
        expect(f.outside, `${f.figure}: every text inside the SVG`).toEqual([]);
        expect(f.inViewport, `${f.figure}: the SVG inside the screen`).toBe(true);
      }
    });
  }
});

test.describe('a Chinese page has no English left untranslated', () => {
  /** English sentences, not names: function words between Latin words. */
  const ENGLISH = /\b(?:the|of|from|and|with|is|are|was|to|by|for|not|has|its)\b/i;
  const zhRecords = recordTemplates('zh').map((c) => c.path);
  const zhArticles = articleTemplates('zh').map((c) => c.path);
  for (const path of [...zhRecords, ...zhArticles]) {
    test(`${path}: the site’s own words are Chinese`, async ({ page }) => {
      await page.goto(path);
      const found = await page.evaluate((source) => {
        const english = new RegExp(source, 'i');
        // Code, raw output, the run's own bound values and text marked as English are quoted, not words of the page.
        const quoted = 'pre, code, [data-fact]:not([data-fact$=".host"]), [lang|="en"], script, style';
        // An article's prose is its MDX's, and its claims' statements its definition's (each checked by its own author); the rest is the site's.
        const skip = [
          document.querySelector('article[data-run]')
            ? '.article-body p, .article-body li, .article-body h2, .article-body h3, .article-body figcaption'
            : null,
          '.run-claim-statement',
        ]
          .filter(Boolean)
          .join(', ');
        const out: string[] = [];
        const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          const el = node.parentElement!;
          if (el.closest(quoted)) continue;
          if (skip && el.closest(skip) && !el.closest('.run-badge, .provenance, .claim-matrix, .measured-heading, .code-label, .run-environment')) continue;
          if (english.test(node.textContent ?? '')) out.push((node.textContent ?? '').trim().slice(0, 80));
        }
        for (const el of document.querySelectorAll('[aria-label], [title], [alt]')) {
          if (el.closest('[lang|="en"]')) continue;
          for (const name of ['aria-label', 'title', 'alt']) {
            const value = el.getAttribute(name);
            if (value && english.test(value)) out.push(`${name}="${value.slice(0, 80)}"`);
          }
        }
        return out;
      }, ENGLISH.source);
      expect(found).toEqual([]);
      // The host is run.host in English ("linux x64, kernel …"): here its two parts, bound, in Chinese words
      // (in the site's components; the prose binds what its author chose).
      expect(await page.locator('.provenance [data-fact="run.host"], .run-record [data-fact="run.host"]').count()).toBe(0);
      const host = page.locator('.run-provenance dd:has([data-fact="version.kernel"])').first();
      await expect(host).toContainText('，内核 ');
      await expect(host.locator('[data-fact="version.os"]')).toHaveCount(1);
    });
  }

  for (const path of zhRecords) {
    test(`${path}: what a stand-in read its values from is said in Chinese`, async ({ page }) => {
      await page.goto(path);
      const sources = page.locator('.run-stand-in .stand-in-source');
      // The record chosen to stress the template has stand-ins to check: a sweep that sees none fails.
      expect(await sources.count(), 'the chosen record names a stand-in').toBeGreaterThan(0);
      // Read values name their source translated; none is left in English outside an element that says so.
      expect(await page.locator('.run-stand-in [data-translates]').count()).toBeGreaterThan(0);
      expect(await page.locator('.run-stand-in [data-fact$=".from"]:not([lang="en"] *)').count()).toBe(0);
      await expect(sources.filter({ hasText: /the Node's|Nodes' spec|the pod's spec|on the node/ })).toHaveCount(0);
    });
  }
});

test.describe('a run record names each step output by what ran where', () => {
  for (const article of chosenRecords) {
    for (const path of [article.path]) {
      test(`${path}: every step output has a name with its node, and its argv wraps at 375 px`, async ({ page }) => {
        await page.setViewportSize({ width: 375, height: 800 });
        await page.goto(path);
        const steps = await page.locator('.run-record .step-output').evaluateAll((outputs) =>
          outputs.map((o) => {
            const step = o.getAttribute('data-step')!;
            const name = o.querySelector('h3.step-name');
            const argv = o.querySelector('pre.argv-block')!;
            return {
              step,
              name: name?.textContent ?? '',
              node: name?.querySelector(`[data-fact="${step}.node"]`)?.textContent ?? null,
              command: argv.textContent ?? '',
              hidden: argv.scrollWidth - argv.clientWidth,
            };
          }),
        );
        expect(steps.length).toBeGreaterThan(3);
        const rows = await page
          .locator('.run-steps tr[data-step]')
          .evaluateAll((trs) => trs.map((tr) => ({ step: tr.getAttribute('data-step')!, node: tr.querySelector('[data-fact$=".node"]')!.textContent })));
        for (const s of steps) {
          const row = rows.find((r) => r.step === s.step)!;
          // Named where it ran (the capture's own host has no node fact), and by what ran.
          if (row.node === 'host') expect(s.name, s.step).toMatch(article.lang === 'zh' ? /采集程序/ : /by the capture/);
          else expect(s.node, `${s.step}: its node, bound`).toBe(row.node);
          const program = s.command.includes(' curl ') ? 'curl' : null;
          if (program) expect(s.name, `${s.step}: a request names what it reached`).toMatch(/curl.*→/);
          expect(s.hidden, `${s.step}: the argv wraps instead of hiding past the edge`).toBeLessThanOrEqual(0);
        }
      });
    }
  }
});

test.describe('the claim matrix: a line per claim, then a mark per run, linking to what the claim read there', () => {
  const runs = deriveRuns(committedSnapshots);
  /** The steps whose output a claim reads in a run, in the order read, with the claim's own definition over the derived facts. */
  const stepsRead = (claim: string, evidence: DerivedEvidence): string[] => {
    const def = article074.claimDefs.find((c) => c.id === claim)!;
    const steps: string[] = [];
    def.holds((id) => {
      const fact = evidence.facts.get(id);
      if (fact && fact.step !== 'run' && fact.step !== 'declared' && !steps.includes(fact.step)) steps.push(fact.step);
      return fact?.value ?? '';
    });
    return steps;
  };
  const WHERE = { zh: { kind: 'kind 集群', lab: '命名空间实验环境' }, en: { kind: 'the kind cluster', lab: 'the namespace lab' } } as const;

  for (const lang of ['zh', 'en'] as const) {
    // The matrix and the runs' provenance notes are on the article's evidence page.
    const path = `${articlePathOf(lang, SLUG)}evidence/`;
    test(`${path}: each cell says ✓ or ✗, is named by claim, run and outcome, and opens every value the claim read there, each linked to its output`, async ({
      page,
    }) => {
      await page.goto(path);
      // The headline version's table; every other version's is checked against its own runs below.
      const cells = await page.locator(`.claim-matrix td.claim-cell[data-version="${HEADLINE_VERSION}"]`).evaluateAll((tds) =>
        tds.map((td) => ({
          claim: td.closest('tr')!.getAttribute('data-claim')!,
          statement: td.closest('tr')!.querySelector('th')!.textContent!,
          status: td.getAttribute('data-claim-status')!,
          environment: td.getAttribute('data-environment'),
          variant: td.getAttribute('data-variant'),
          mark: td.querySelector('[aria-hidden="true"]')?.textContent ?? '',
          href: td.querySelector('a')?.getAttribute('href') ?? null,
        })),
      );
      expect(cells.length).toBe(40);
      for (const cell of cells) {
        const where = `${cell.environment}/${cell.variant}: ${cell.claim}`;
        expect(cell.mark, where).toBe({ holds: '✓', broken: '✗', 'not-applicable': '–' }[cell.status]);
        if (cell.status === 'not-applicable') {
          expect(cell.href, where).toBeNull();
          continue;
        }
        const record = `${articlePathOf(lang, SLUG)}run/${[
          cell.environment === HEADLINE_074 ? null : cell.environment,
          cell.variant === 'iptables' ? null : cell.variant,
        ]
          .filter(Boolean)
          .map((p) => `${p}/`)
          .join('')}`;
        expect(cell.href, where).toBe(`${record}#claim-${cell.claim}`);
      }
      // The accessible name: which claim, where (environment and mode) and the outcome.
      const first = cells.find((c) => c.status === 'holds' && stepsRead(c.claim, runs[c.environment as keyof Runs074][c.variant as Variant074]).length > 1)!;
      const link = page.locator(`.claim-matrix tr[data-claim="${first.claim}"] td[data-run] a`).first();
      const name = await link.evaluate((a) => a.textContent!.replace(a.querySelector('[aria-hidden]')!.textContent!, ''));
      expect(name).toContain(first.statement);
      expect(name).toContain(WHERE[lang][first.environment as 'kind' | 'lab']);
      expect(name).toContain(first.variant!);
      expect(name).toContain(lang === 'zh' ? '成立' : 'holds');
      await expect(link).toHaveAccessibleName(name);
      // It lands on the claim's entry in the record, which links every step the claim read there, each to its output.
      await link.click();
      const entry = page.locator(':target');
      await expect(entry).toHaveAttribute('data-claim', first.claim);
      await expect(entry).toBeInViewport();
      const steps = stepsRead(first.claim, runs[first.environment as keyof Runs074][first.variant as Variant074]);
      const linked = await entry.locator('a[href^="#output-"]').evaluateAll((as) => [...new Set(as.map((a) => a.getAttribute('href')!))]);
      expect(linked).toEqual(steps.map((s) => `#output-${s}`));
      for (const href of linked) await expect(page.locator(href)).toHaveClass(/\bstep-output\b/);
      await entry
        .locator(`a[href="${linked.at(-1)}"]`)
        .first()
        .click();
      await expect(page.locator(':target')).toHaveClass(/\bstep-output\b/);
      await expect(page.locator(':target')).toBeInViewport();
    });

    test(`${path}: a line per claim across every run first; each version's table one tap away, its header in view; the runs in a table`, async ({ page }) => {
      await page.goto(path);
      const matrix = page.locator('.claim-matrix');
      const claims = await matrix
        .locator(`tr[data-claim][data-claim-status]`)
        .filter({ has: page.locator(`td[data-version="${HEADLINE_VERSION}"]`) })
        .count();
      const lines = matrix.locator('tr[data-claim-reach]');
      await expect(lines).toHaveCount(claims);
      // Every cell of a claim, in every version, holds: its line says so, with the count of the runs it was judged in.
      for (const row of await lines.all()) {
        const id = (await row.getAttribute('data-claim-reach'))!;
        const judged = await matrix.locator(`tr[data-claim="${id}"] td.claim-cell:not([data-claim-status="not-applicable"])`).count();
        await expect(row).toHaveAttribute('data-claim-status', 'holds');
        await expect(row.locator('td')).toContainText(String(judged));
        await expect(row).toBeVisible();
      }
      // The headline version's table is open, every other one closed and a tap away.
      const versions = matrix.locator('details.claim-matrix-version');
      await expect(versions).toHaveCount(4);
      await expect(versions.first()).toHaveAttribute('open', '');
      const older = versions.nth(1);
      await expect(older.locator('td.claim-cell').first()).toBeHidden();
      await older.locator('summary').click();
      await expect(older.locator('td.claim-cell').first()).toBeVisible();
      // Scrolled into the middle of a table, its header stays at the top of the screen.
      const table = versions.first().locator('table');
      const top = await table.evaluate((t) => t.getBoundingClientRect().top + window.scrollY);
      await page.evaluate((y) => window.scrollTo(0, y), top + 200);
      await expect.poll(() => page.evaluate(() => window.scrollY)).toBeGreaterThan(top);
      const [head, body] = await Promise.all([table.locator('thead').boundingBox(), table.boundingBox()]);
      expect(body!.y, 'the table begins above the screen').toBeLessThan(0);
      expect(Math.abs(head!.y), 'its header at the top of the screen').toBeLessThanOrEqual(1);
      // The runs: a row each, its id linked to its record.
      const runRows = matrix.locator('details.claim-matrix-runs tbody tr[data-run]');
      await matrix.locator('details.claim-matrix-runs summary').click();
      await expect(runRows).toHaveCount(16);
      await expect(runRows.first().locator('a [data-fact="run.id"]')).toHaveText((await runRows.first().getAttribute('data-run'))!);
    });

    test(`${path} at 375 px: a claim is its statement and one line of marks under the runs’ headings`, async ({ page }) => {
      await page.setViewportSize({ width: 375, height: 800 });
      await page.goto(path);
      const rows = await page.locator(`.claim-matrix .table-scroll[data-version="${HEADLINE_VERSION}"] tbody tr`).evaluateAll((trs) =>
        trs.map((tr) => {
          const statement = tr.querySelector('th')!.getBoundingClientRect();
          const marks = [...tr.querySelectorAll('td')].map((td) => td.getBoundingClientRect());
          return {
            height: tr.getBoundingClientRect().height,
            statement: statement.height,
            tops: new Set(marks.map((m) => Math.round(m.top))).size,
            // What a sighted reader sees of a cell: its mark; the rest is a clipped name for screen readers.
            text: [...tr.querySelectorAll('td')].map((td) => {
              const seen = td.cloneNode(true) as Element;
              seen.querySelectorAll('.visually-hidden').forEach((e) => e.remove());
              return seen.textContent!.trim();
            }),
            clipped: [...tr.querySelectorAll('td .visually-hidden')].every((e) => e.getBoundingClientRect().width <= 1),
          };
        }),
      );
      expect(rows.length).toBe(10);
      for (const row of rows) {
        expect(row.tops, 'the marks share one line').toBe(1);
        expect(row.height, 'a line of marks under the statement, no more').toBeLessThanOrEqual(row.statement + 40);
        for (const mark of row.text) expect(mark).toMatch(/^[✓✗–]$/);
        expect(row.clipped).toBe(true);
      }
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
    });

    test(`${path}: each provenance note’s link says whose record it is`, async ({ page }) => {
      await page.goto(path);
      const names = await page.locator('section.provenance .provenance-link a').evaluateAll((as) => as.map((a) => a.textContent!.trim()));
      expect(names.length).toBe(4);
      expect(new Set(names).size, names.join('\n')).toBe(4);
    });
  }
});

test.describe('declared and not-measured values are marked inside their sentence', () => {
  for (const { path } of LANGS.map(marksTemplate)) {
    test(`${path} at 375 px: each mark sits on the value's line as a tag, and is read with it`, async ({ page }) => {
      await page.setViewportSize({ width: 375, height: 800 });
      await page.goto(path);
      const marked = page.locator('article [data-declared][data-mark], article [data-not-measured][data-mark]');
      // Chosen for having the most marks: a page without any would check nothing.
      expect(await marked.count(), 'the chosen page marks values').toBeGreaterThan(0);
      const looks = await marked.evaluateAll((els) =>
        els.map((el) => {
          const after = getComputedStyle(el, '::after');
          return {
            text: el.textContent!,
            mark: el.getAttribute('data-mark')!,
            lines: el.getClientRects().length,
            display: after.display,
            verticalAlign: after.verticalAlign,
            decoration: getComputedStyle(el).textDecorationLine,
          };
        }),
      );
      for (const l of looks) {
        expect(l.lines, `${l.text} ${l.mark}: value and mark on one line`).toBe(1);
        expect(l.display, `${l.text}: the mark is a box on the line, not a block`).toBe('inline-block');
        expect(['super', 'sub', 'top'], `${l.text}: not a raised footnote mark`).not.toContain(l.verticalAlign);
        expect(l.decoration).toContain('underline');
      }
      // Screen readers hear the mark after the value, as words of their own.
      const first = looks[0]!;
      const sentence = await marked.first().locator('xpath=ancestor::*[self::p or self::li][1]').ariaSnapshot();
      expect(sentence).toContain(`${first.text} ${first.mark}`);
    });
  }
});
