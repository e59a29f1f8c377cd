// Browser checks of the built site (dist/): `astro preview` serves it; the test
// command builds first, this file never does.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from '@playwright/test';

const SYSTEM_CHROMIUM = '/usr/bin/chromium';
// Debian's Chromium without these would try the network (closed here) and flood it with refused connections.
const SYSTEM_CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const PORT = Number(process.env.SHICE_E2E_PORT ?? 4399);
const useSystemChromium = existsSync(SYSTEM_CHROMIUM);

// Workers load this file too: say it once, from the runner.
if (process.env.TEST_WORKER_INDEX === undefined) {
  console.log(
    useSystemChromium
      ? `[e2e] Chromium: ${SYSTEM_CHROMIUM} (system package)`
      : `[e2e] Chromium: Playwright's own (no ${SYSTEM_CHROMIUM}); install it with \`npx playwright install chromium\` if missing`,
  );
}

const astroBin = fileURLToPath(new URL('./node_modules/astro/bin/astro.mjs', import.meta.url));

export default defineConfig({
  testDir: 'tests/e2e',
  outputDir: 'test-results',
  reporter: 'list',
  fullyParallel: true,
  forbidOnly: Boolean(process.env.CI),
  use: {
    baseURL: `http://127.0.0.1:${PORT}`,
    browserName: 'chromium',
    launchOptions: useSystemChromium ? { executablePath: SYSTEM_CHROMIUM, args: SYSTEM_CHROMIUM_ARGS } : {},
  },
  webServer: {
    // process.execPath: the Node running Playwright (24 under npm scripts); astro refuses Node 20.
    command: `"${process.execPath}" "${astroBin}" preview --host 127.0.0.1 --port ${PORT} --ignore-lock`,
    url: `http://127.0.0.1:${PORT}/`,
    // --ignore-lock: Astro refuses a second preview of the same project (a bench or an
    // author's preview); this one is ours, on its own port.
    // Never test whatever else holds the port (another tree's preview): fail instead.
    reuseExistingServer: false,
    timeout: 60_000,
    stdout: 'ignore',
    stderr: 'pipe',
  },
});
