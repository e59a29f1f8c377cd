// What a reader's hands meet on an article page, in a real browser against the
// built dist/: copy buttons on the commands and outputs, and the table of
// contents marking the section in view.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';
import { load } from 'js-yaml';
import { articlePathOf } from './support/articles.ts';
import { committedSnapshots, deriveEvidence, SLUG } from './support/evidence.ts';

const evidence = deriveEvidence(committedSnapshots);

/** Opens the folded block that holds a step's output on an article page, as a reader's click on its summary does. */
const openFolded = (page: Page, step: string) =>
  page
    .locator(`#output-${step}`)
    .locator('xpath=ancestor::details')
    .first()
    .evaluate((d: HTMLDetailsElement) => (d.open = true));

test.describe('copy buttons', () => {
  test.use({ permissions: ['clipboard-read', 'clipboard-write'] });

  test('the output button copies the output exactly as the snapshot has it, and says so to screen readers', async ({ page }) => {
    await page.goto(articlePathOf('en', SLUG));
    // A multi-line output: worker2's filter table.
    const step = 'iptables-worker2';
    const output = page.locator(`#output-${step} .step-stdout`);
    await openFolded(page, step);
    await output.getByRole('button', { name: 'Copy the output' }).click();
    const expected = evidence.stdout.get(step)!.replace(/\n$/, '');
    expect(expected.split('\n').length).toBeGreaterThan(5);
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(expected);
    await expect(page.getByRole('status').filter({ hasText: 'Copied' })).toHaveCount(1);
    // And to the eye, on the button, whose name is then the word it shows.
    await expect(output.getByRole('button', { name: 'Copied' })).toBeVisible();
    const results = await new AxeBuilder({ page }).include(`#output-${step}`).analyze();
    expect(results.violations.map((v) => v.id)).toEqual([]);
  });

  test('a long line of JSON is laid out to be read, says so, and is copied as it came; its record shows it as it came', async ({ page }) => {
    await page.goto(articlePathOf('en', SLUG));
    const step = 'addresses-worker';
    const expected = evidence.stdout.get(step)!.replace(/\n$/, '');
    expect(expected.includes('\n'), 'the snapshot holds one line').toBe(false);
    const output = page.locator(`#output-${step} .step-stdout`);
    await openFolded(page, step);
    const shown = (await output.locator('pre').textContent())!;
    expect(shown.split('\n').length).toBeGreaterThan(20);
    expect(JSON.parse(shown)).toEqual(JSON.parse(expected));
    await expect(output.locator('[data-laid-out]')).toBeVisible();
    await output.getByRole('button', { name: 'Copy the output' }).click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(expected);
    // At a phone's width no line of it runs past the block.
    await page.setViewportSize({ width: 375, height: 800 });
    const pre = output.locator('pre');
    expect(await pre.evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(0);
    // The run record keeps the line.
    await page.goto(`${articlePathOf('en', SLUG)}run/`);
    await expect(page.locator(`#output-${step} .step-stdout pre`)).toHaveText(expected);
    await expect(page.locator(`#output-${step} [data-laid-out]`)).toHaveCount(0);
  });

  test('the command button copies the command as the node ran it, without the prompt, in Chinese too', async ({ page }) => {
    await page.goto(articlePathOf('zh', SLUG));
    const step = 'cluster-via-worker';
    await openFolded(page, step);
    await page
      .locator(`#output-${step}`)
      .getByRole('button', { name: /^复制\s?命令$/ })
      .click();
    // The snapshot's command: plain words (no quoting needed), as a shell line.
    const { command } = load(readFileSync(join(committedSnapshots, `${step}.yaml`), 'utf8')) as { command: string[] };
    expect(command.every((word) => /^[\w./:=-]+$/.test(word))).toBe(true);
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(command.join(' '));
    await expect(page.getByRole('status').filter({ hasText: '已复制' })).toHaveCount(1);
  });

  test('without JavaScript there is no copy button, and the outputs are all there', async ({ browser }) => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(articlePathOf('en', SLUG));
    await expect(page.locator('.copy-button')).toHaveCount(0);
    await expect(page.locator('#output-iptables-worker2 pre').first()).toBeAttached();
    await context.close();
  });
});

test.describe('table of contents', () => {
  test.use({ viewport: { width: 1280, height: 800 } });

  test('marks the link of the section in view with aria-current, and only that one', async ({ page }) => {
    await page.goto(articlePathOf('en', SLUG));
    const links = page.locator('[data-toc] a');
    const count = await links.count();
    expect(count).toBeGreaterThanOrEqual(4);
    const current = page.locator('[data-toc] a[aria-current]');
    // Down the page section by section, then back up to the second one (a jump over several).
    for (const i of [0, 1, count - 2, 1]) {
      const id = decodeURIComponent((await links.nth(i).getAttribute('href'))!.slice(1));
      await page.locator(`[id="${id}"]`).evaluate((h) => h.scrollIntoView({ block: 'start' }));
      await expect(current).toHaveCount(1);
      await expect(links.nth(i)).toHaveAttribute('aria-current', 'location');
    }
    const results = await new AxeBuilder({ page }).include('[data-toc]').analyze();
    expect(results.violations.map((v) => v.id)).toEqual([]);
  });
});
