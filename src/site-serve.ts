// What a static host should answer for a request of the built site, as a pure
// function: the file for a page path (`<path>/index.html` for `<path>/` and for
// `<path>`), the language's own 404 page for a missing page (`en/404.html`
// under /en/, the root 404.html elsewhere), nothing outside the base path or
// above the output folder. `npm run preview` (scripts/preview.ts) serves this;
// hosts that pick a 404 page per folder do the same.
import { posix } from 'node:path';

export interface ServeSite {
  /** The base path, starting and ending with a slash ('/' or '/shice/'). */
  base: string;
  /** Language sections other than the root one: 'en' for /en/. */
  sections: readonly string[];
  /** Whether a file (a path relative to the output folder, with '/') exists. */
  isFile: (path: string) => boolean;
}

export type ServeAnswer = { status: 200 | 404; file: string } | { status: 404; file: null };

/**
 * The path of a request's target (`req.url`: `/a/b?q`, or an absolute `http://host/a/b`), or null when it is
 * no URL at all (`http://[`): the server answers that 400. Pure; never throws.
 */
export function requestPath(target: string | undefined): string | null {
  if (!URL.canParse(target ?? '/', 'http://site')) return null;
  return new URL(target ?? '/', 'http://site').pathname;
}

/** The file of the output folder a request path is answered with, and the status. */
export function answerFor(requestPath: string, site: ServeSite): ServeAnswer {
  let decoded: string;
  try {
    decoded = decodeURIComponent(requestPath.split(/[?#]/)[0]!);
  } catch {
    decoded = '\0';
  }
  const notFound = (within: string): ServeAnswer => {
    const section = site.sections.find((s) => within === s || within.startsWith(`${s}/`));
    const page = section ? `${section}/404.html` : '404.html';
    return site.isFile(page) ? { status: 404, file: page } : site.isFile('404.html') ? { status: 404, file: '404.html' } : { status: 404, file: null };
  };
  if (!decoded.startsWith(site.base) && `${decoded}/` !== site.base) return notFound('');
  // Normalized inside the output folder: `..` cannot climb out of it, a NUL is no path.
  const inside = posix.normalize(`/${decoded.slice(site.base.length)}`).slice(1);
  if (inside.includes('\0')) return notFound('');
  const candidates = inside === '' ? ['index.html'] : inside.endsWith('/') ? [`${inside}index.html`] : [inside, `${inside}/index.html`];
  const file = candidates.find((c) => site.isFile(c));
  return file ? { status: 200, file } : notFound(inside);
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.xml': 'application/xml; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
};

/** The Content-Type of a served file, by its extension. */
export function contentType(file: string): string {
  return TYPES[posix.extname(file)] ?? 'application/octet-stream';
}
