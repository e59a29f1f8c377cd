// Browser checks of the built site (dist/): `npm run preview` serves it; the test
// command builds first, this file never does.
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
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

const previewScript = fileURLToPath(new URL('./scripts/preview.ts', import.meta.url));

export default defineConfig({
  testDir: 'tests/e2e',
  outputDir: 'test-results',
  reporter: 'list',
  fullyParallel: true,
  // Playwright's default is half the cores, one worker on two; the checks wait on page loads as much as on the CPU.
  workers: Math.max(2, Math.floor(availableParallelism() / 2)),
  forbidOnly: Boolean(process.env.CI),
  use: {
    baseURL: `http://127.0.0.1:${PORT}`,
    browserName: 'chromium',
    launchOptions: useSystemChromium ? { executablePath: SYSTEM_CHROMIUM, args: SYSTEM_CHROMIUM_ARGS } : {},
  },
  webServer: {
    // The site as `npm run preview` serves it (scripts/preview.ts): a static host's answers,
    // the English 404 under /en/ included. process.execPath: the Node running Playwright (24).
    command: `"${process.execPath}" "${previewScript}" --port ${PORT}`,
    url: `http://127.0.0.1:${PORT}/`,
    // Never test whatever else holds the port (another tree's preview): fail instead.
    reuseExistingServer: false,
    timeout: 60_000,
    stdout: 'ignore',
    stderr: 'pipe',
  },
});
