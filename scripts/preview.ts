// `npm run preview -- [--port 4321] [--host 127.0.0.1] [--dist dist]`: the built
// site as a static host serves it, base path (SHICE_SITE_URL) included; a
// missing page under /en/ is answered with the English 404 page. It judges
// nothing: a draft build previews as it was built.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { SITE_ADDRESS } from '../src/site.config.ts';
import { serveSite } from './lib/site-server.ts';

const args = process.argv.slice(2);
const option = (name: string, fallback: string): string => {
  const at = args.indexOf(name);
  if (at < 0) return fallback;
  const value = args[at + 1];
  if (value === undefined || value.startsWith('--')) {
    process.stderr.write(`preview: ${name} needs a value\n`);
    process.exit(2);
  }
  return value;
};
const known = new Set(['--port', '--host', '--dist']);
const unknown = args.filter((a, i) => a.startsWith('--') && !known.has(a) && !known.has(args[i - 1] ?? ''));
if (unknown.length) {
  process.stderr.write(`preview: unknown option ${unknown[0]}; expected --port N, --host ADDRESS, --dist DIR\n`);
  process.exit(2);
}
const dist = resolve(option('--dist', 'dist'));
const port = Number(option('--port', '4321'));
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  process.stderr.write(`preview: --port: expected a port number, got ${option('--port', '')}\n`);
  process.exit(2);
}
if (!existsSync(join(dist, 'index.html'))) {
  process.stderr.write(`preview: no built site in ${dist}; run npm run build (or npm run build:draft) first\n`);
  process.exit(2);
}
try {
  const { url } = await serveSite({ dist, base: SITE_ADDRESS.base, host: option('--host', '127.0.0.1'), port });
  process.stdout.write(`preview: ${dist} at ${url}\n`);
} catch (error) {
  process.stderr.write(`preview: cannot listen: ${(error as Error).message}\n`);
  process.exit(2);
}
