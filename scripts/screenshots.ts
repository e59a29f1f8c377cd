// `npm run screenshots -- [--dist dist] [--out screenshots]`: the pages as a reader
// sees them, both languages at 375, 390 and 1280 px, light and dark, full page, in
// Chromium (Debian's when present). Serves the built folder itself, so a build of
// another commit can be shot the same way for a before/after comparison.
import { createServer } from 'node:http';
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, resolve } from 'node:path';
import { chromium } from '@playwright/test';

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

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css',
  '.js': 'text/javascript',
  '.svg': 'image/svg+xml',
  '.xml': 'application/xml',
};
const server = createServer((req, res) => {
  const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
  let file = join(dist, path);
  if (existsSync(file) && statSync(file).isDirectory()) file = join(file, 'index.html');
  if (!file.startsWith(dist) || !existsSync(file)) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
});
await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
const port = (server.address() as { port: number }).port;

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
