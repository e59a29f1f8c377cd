// The built site served as a static host serves it (src/site-serve.ts decides
// each answer): for `npm run preview`, the browser suite and the screenshots.
import { createServer, type Server } from 'node:http';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { answerFor, contentType } from '../../src/site-serve.ts';
import { DEFAULT_LANG, LANGS } from '../../src/site.config.ts';

export interface SiteServer {
  server: Server;
  /** The site's root URL, base path included. */
  url: string;
}

/** Serves `dist` under `base` on host:port (port 0: any free one); resolves once it listens. */
export async function serveSite(options: { dist: string; base: string; host: string; port: number }): Promise<SiteServer> {
  const { dist, base, host, port } = options;
  const isFile = (path: string) => {
    try {
      return statSync(join(dist, path)).isFile();
    } catch {
      return false;
    }
  };
  const sections = LANGS.filter((lang) => lang !== DEFAULT_LANG);
  const server = createServer((req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    const answer = answerFor(new URL(req.url ?? '/', 'http://site').pathname, { base, sections, isFile });
    if (answer.file === null) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
      return;
    }
    const body = readFileSync(join(dist, answer.file));
    res.writeHead(answer.status, { 'content-type': contentType(answer.file), 'content-length': body.length });
    res.end(req.method === 'HEAD' ? undefined : body);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  const actual = typeof address === 'object' && address ? address.port : port;
  return { server, url: `http://${host.includes(':') ? `[${host}]` : host}:${actual}${base}` };
}
