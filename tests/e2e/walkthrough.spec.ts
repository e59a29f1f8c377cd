// 分步演示: readable without JavaScript (every stop in reading order), and with
// it a stepper driven by its buttons or the arrow keys.
import { expect, test } from '@playwright/test';

const PAGES = ['/074-external-traffic-policy/', '/en/074-external-traffic-policy/'];

for (const path of PAGES) {
  test.describe(path, () => {
    test('without JavaScript every stop is shown, each with its manifest object', async ({ browser }) => {
      const context = await browser.newContext({ javaScriptEnabled: false });
      const page = await context.newPage();
      await page.goto(path);
      const stops = page.locator('.walkthrough-stop');
      const count = await stops.count();
      expect(count).toBeGreaterThan(3);
      for (let i = 0; i < count; i++) {
        await expect(stops.nth(i)).toBeVisible();
        await expect(stops.nth(i).locator('figure.walkthrough-object[data-source] pre')).toBeVisible();
      }
      await expect(page.locator('.walkthrough-nav')).toBeHidden();
      await context.close();
    });

    test('with JavaScript one stop at a time, by button and by arrow key', async ({ page }) => {
      await page.goto(path);
      const stops = page.locator('.walkthrough-stop');
      const count = await stops.count();
      const visibleIndex = async () => {
        const visible: number[] = [];
        for (let i = 0; i < count; i++) if (await stops.nth(i).isVisible()) visible.push(i);
        return visible;
      };
      expect(await visibleIndex()).toEqual([0]);
      const prev = page.locator('[data-walk="prev"]');
      const next = page.locator('[data-walk="next"]');
      await expect(prev).toBeDisabled();
      await next.focus();
      await page.keyboard.press('Enter');
      expect(await visibleIndex()).toEqual([1]);
      await page.keyboard.press('ArrowRight');
      expect(await visibleIndex()).toEqual([2]);
      await expect(stops.nth(2).locator('.walkthrough-title')).toBeFocused();
      await page.keyboard.press('ArrowLeft');
      expect(await visibleIndex()).toEqual([1]);
      while (await next.isEnabled()) await next.click();
      expect(await visibleIndex()).toEqual([count - 1]);
      await expect(next).toBeDisabled();
      // The highlighted lines of the object are the fields the stop is about.
      await expect(
        stops
          .nth(count - 1)
          .locator('.highlighted')
          .first(),
      ).toBeVisible();
    });
  });
}
