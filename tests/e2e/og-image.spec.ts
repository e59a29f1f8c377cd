// Each article page's link-preview card: the meta tags that name it, and the
// image itself, a 1200×630 PNG the browser decodes, showing the headline values
// the page binds.
import { expect, test } from '@playwright/test';
import { LANGS, articlePathOf } from './support/articles.ts';
import { titleTemplate } from './support/templates.ts';
import { localPathOf } from './support/origin.ts';

/** A PNG's size from its IHDR chunk (bytes 16-23), before any browser looks at it. */
function pngSize(bytes: Buffer): { width: number; height: number } {
  expect(bytes.subarray(0, 8).toString('hex'), 'PNG signature').toBe('89504e470d0a1a0a');
  expect(bytes.subarray(12, 16).toString('latin1')).toBe('IHDR');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

// The card with the longest title to draw; every card's tags are checked in pages.spec.ts, every PNG's size in tests/built.
for (const slug of [titleTemplate('zh').slug]) {
  for (const lang of LANGS) {
    test(`${lang} ${slug}: og:image is a 1200×630 PNG of the card, named with its size and alt`, async ({ page, request }) => {
      await page.goto(articlePathOf(lang, slug));
      const meta = async (key: string) => page.locator(`head meta[property="${key}"], head meta[name="${key}"]`).getAttribute('content');
      const image = await meta('og:image');
      expect(image).toMatch(/\/og\.png$/);
      expect(await meta('og:image:width')).toBe('1200');
      expect(await meta('og:image:height')).toBe('630');
      expect(await meta('og:image:type')).toBe('image/png');
      expect(await meta('twitter:card')).toBe('summary_large_image');

      // The alt says what the card shows: every headline value the page binds.
      const alt = (await meta('og:image:alt')) ?? '';
      expect(alt.startsWith((await meta('og:title'))!)).toBe(true);
      const values = await page.locator('.headline-value').allInnerTexts();
      expect(values.length).toBeGreaterThan(0);
      for (const value of values) expect(alt).toContain(value.trim());

      const path = localPathOf(image!);
      const response = await request.get(path);
      expect(response.status()).toBe(200);
      expect(response.headers()['content-type']).toBe('image/png');
      expect(pngSize(await response.body())).toEqual({ width: 1200, height: 630 });

      // Decoded by the browser: its size, and not a blank card (the text's pixels differ from the background).
      const decoded = await page.evaluate(async (src) => {
        const img = new Image();
        img.src = src;
        await img.decode();
        const canvas = Object.assign(document.createElement('canvas'), { width: img.naturalWidth, height: img.naturalHeight });
        const context = canvas.getContext('2d')!;
        context.drawImage(img, 0, 0);
        const pixels = context.getImageData(0, 0, canvas.width, canvas.height).data;
        let dark = 0;
        for (let i = 0; i < pixels.length; i += 4) if (pixels[i]! + pixels[i + 1]! + pixels[i + 2]! < 200) dark++;
        return { width: img.naturalWidth, height: img.naturalHeight, darkShare: dark / (pixels.length / 4) };
      }, path);
      expect({ width: decoded.width, height: decoded.height }).toEqual({ width: 1200, height: 630 });
      expect(decoded.darkShare).toBeGreaterThan(0.01);
    });
  }
}
