// `npm run screenshots -- [--dist dist] [--out screenshots]`: the pages as a reader
// sees them, both languages at 375, 390 and 1280 px, light and dark, full page, in
// Chromium (Debian's when present). Serves the built folder itself, so a build of
// another commit can be shot the same way for a before/after comparison.
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium } from '@playwright/test';
import { serveSite } from './lib/site-server.ts';

const args = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const at = args.indexOf(name);
  return at >= 0 && args[at + 1] ? args[at + 1]! : fallback;
};
const dist = resolve(option('--dist', 'dist'));
const out = resolve(option('--out', 'screenshots'));
if (!existsSync(join(dist, 'index.html'))) {
  process.stderr.write(`screenshots: no built site in ${dist} (run npm run build first)\n`);
  process.exit(2);
}
mkdirSync(out, { recursive: true });

// The build as a static host serves it, at the root (a base path's build is shot from its root too).
const { server, url } = await serveSite({ dist, base: '/', host: '127.0.0.1', port: 0 });
const port = Number(new URL(url).port);

const PAGES = [
  { name: 'zh-article', path: '/074-external-traffic-policy/' },
  { name: 'en-article', path: '/en/074-external-traffic-policy/' },
  { name: 'zh-run-record', path: '/074-external-traffic-policy/run/' },
  { name: 'en-run-record-nftables', path: '/en/074-external-traffic-policy/run/nftables/' },
  { name: 'zh-home', path: '/' },
  { name: 'en-home', path: '/en/' },
];
const WIDTHS = [375, 390, 1280];
const SCHEMES = ['light', 'dark'] as const;
const SYSTEM_CHROMIUM = '/usr/bin/chromium';
const browser = await chromium.launch(
  existsSync(SYSTEM_CHROMIUM)
    ? {
        executablePath: SYSTEM_CHROMIUM,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      }
    : {},
);
try {
  for (const page of PAGES) {
    for (const width of WIDTHS) {
      for (const colorScheme of SCHEMES) {
        const context = await browser.newContext({ viewport: { width, height: 900 }, colorScheme });
        const tab = await context.newPage();
        await tab.goto(`http://127.0.0.1:${port}${page.path}`);
        const file = join(out, `${page.name}-${width}-${colorScheme}.png`);
        await tab.screenshot({ path: file, fullPage: true });
        process.stdout.write(`${file}\n`);
        await context.close();
      }
    }
  }
} finally {
  await browser.close();
  server.close();
}
