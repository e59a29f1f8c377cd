// What a browser downloads to show one page, found in the page's HTML and CSS,
// and how many bytes that is raw and gzipped. Pure (gzip runs in memory).
// Astro writes plain, regular HTML: a tag-level reader is enough, and the
// tests hold it to real pages of this site.
import { gzipSync } from 'node:zlib';

export type ResourceKind = 'html' | 'css' | 'js' | 'image';

export interface PageReferences {
  stylesheets: string[];
  scripts: string[];
  /** Inline <script> bodies that run (JSON data blocks are not scripts). */
  inlineScripts: string[];
  inlineStyles: string[];
  images: string[];
}

const ATTRIBUTE = /([^\s=/>]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/g;

export function attributes(tagSource: string): Map<string, string> {
  const inner = tagSource.replace(/^<[A-Za-z][\w-]*/, '').replace(/\/?>$/, '');
  const found = new Map<string, string>();
  for (const m of inner.matchAll(ATTRIBUTE)) {
    found.set(m[1]!.toLowerCase(), decodeEntities(m[2] ?? m[3] ?? m[4] ?? ''));
  }
  return found;
}

const NAMED_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#\d+|[A-Za-z]+);/g, (whole, code: string) => {
    if (code.startsWith('#x') || code.startsWith('#X')) return String.fromCodePoint(parseInt(code.slice(2), 16));
    if (code.startsWith('#')) return String.fromCodePoint(parseInt(code.slice(1), 10));
    return NAMED_ENTITIES[code] ?? whole;
  });
}

/** Without comments: a commented-out tag is not downloaded. */
function withoutComments(html: string): string {
  return html.replace(/<!--[\s\S]*?-->/g, '');
}

const JS_TYPES = new Set(['', 'module', 'text/javascript', 'application/javascript']);
const srcsetUrls = (srcset: string) =>
  srcset
    .split(',')
    .map((c) => c.trim().split(/\s+/)[0]!)
    .filter(Boolean);

/** Every resource the page asks for, in document order, duplicates removed. */
export function pageReferences(html: string): PageReferences {
  const source = withoutComments(html);
  const refs: PageReferences = { stylesheets: [], scripts: [], inlineScripts: [], inlineStyles: [], images: [] };
  const add = (list: string[], url: string | undefined) => {
    if (url && !list.includes(url)) list.push(url);
  };
  for (const m of source.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi)) {
    const attrs = attributes(`<script${m[1]}>`);
    if (!JS_TYPES.has((attrs.get('type') ?? '').toLowerCase())) continue;
    if (attrs.has('src')) add(refs.scripts, attrs.get('src'));
    else if (m[2]!.trim()) refs.inlineScripts.push(m[2]!);
  }
  for (const m of source.matchAll(/<style\b[^>]*>([\s\S]*?)<\/style\s*>/gi)) refs.inlineStyles.push(m[1]!);
  // Outside script and style bodies, so a "<link" inside a script's string is not a download.
  const markup = source.replace(/<(script|style)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, '');
  for (const m of markup.matchAll(/<link\b[^>]*>/gi)) {
    const attrs = attributes(m[0]);
    const rel = (attrs.get('rel') ?? '').toLowerCase().split(/\s+/);
    if (rel.includes('stylesheet')) add(refs.stylesheets, attrs.get('href'));
    else if (rel.includes('modulepreload') || (rel.includes('preload') && attrs.get('as') === 'script')) add(refs.scripts, attrs.get('href'));
    else if (rel.includes('icon') || rel.includes('apple-touch-icon')) add(refs.images, attrs.get('href'));
  }
  for (const m of markup.matchAll(/<(img|source|image|input)\b[^>]*>/gi)) {
    const attrs = attributes(m[0]);
    if (m[1]!.toLowerCase() === 'input' && attrs.get('type') !== 'image') continue;
    add(refs.images, attrs.get('src') ?? attrs.get('href'));
    for (const url of srcsetUrls(attrs.get('srcset') ?? '')) add(refs.images, url);
  }
  return refs;
}

/** url(...) references in CSS that load something (data: URIs are already inside the file). */
export function cssUrls(css: string): string[] {
  const urls: string[] = [];
  const clean = css.replace(/\/\*[\s\S]*?\*\//g, '');
  for (const m of clean.matchAll(/url\(\s*(?:"([^"]*)"|'([^']*)'|([^)\s]*))\s*\)/gi)) {
    const url = m[1] ?? m[2] ?? m[3] ?? '';
    if (url && !url.startsWith('data:') && !url.startsWith('#') && !urls.includes(url)) urls.push(url);
  }
  for (const m of clean.matchAll(/@import\s+(?:"([^"]+)"|'([^']+)')/gi)) {
    const url = m[1] ?? m[2]!;
    if (!urls.includes(url)) urls.push(url);
  }
  return urls;
}

export interface Resource {
  kind: ResourceKind;
  /** Where it came from: a path in dist/, or "inline script #n in <page>". */
  name: string;
  bytes: Uint8Array;
  /** Part of another resource already counted (an inline script inside the HTML). */
  inline?: boolean;
}

export interface Weight {
  raw: number;
  gzip: number;
}

export interface PageWeight {
  /** Every download: the HTML, stylesheets, scripts and images. */
  total: Weight;
  byKind: Record<ResourceKind, Weight & { count: number }>;
  /** Scripts and styles inside the HTML (already part of the HTML's bytes); the JS budget counts inline scripts. */
  inline: Record<ResourceKind, Weight & { count: number }>;
  items: Array<{ kind: ResourceKind; name: string; inline: boolean } & Weight>;
}

/** gzip as a server would send it (zlib's default level 6). */
export function gzipSize(bytes: Uint8Array): number {
  return gzipSync(bytes).length;
}

/**
 * Adds up a page's downloads, each gzipped on its own as it would travel. Inline
 * resources are reported (the JS budget counts inline scripts) but not added to
 * the total a second time.
 */
export function weighPage(resources: readonly Resource[]): PageWeight {
  const zero = () => ({ raw: 0, gzip: 0, count: 0 });
  const byKind: PageWeight['byKind'] = { html: zero(), css: zero(), js: zero(), image: zero() };
  const inline: PageWeight['inline'] = { html: zero(), css: zero(), js: zero(), image: zero() };
  const total = { raw: 0, gzip: 0 };
  const items: PageWeight['items'] = [];
  for (const r of resources) {
    const weight = { raw: r.bytes.length, gzip: gzipSize(r.bytes) };
    items.push({ kind: r.kind, name: r.name, inline: Boolean(r.inline), ...weight });
    const bucket = (r.inline ? inline : byKind)[r.kind];
    bucket.raw += weight.raw;
    bucket.gzip += weight.gzip;
    bucket.count += 1;
    if (r.inline) continue;
    total.raw += weight.raw;
    total.gzip += weight.gzip;
  }
  return { total, byKind, inline, items };
}

/** The JavaScript a page runs: its script files plus its inline scripts. */
export function javascriptWeight(weight: PageWeight): Weight {
  return { raw: weight.byKind.js.raw + weight.inline.js.raw, gzip: weight.byKind.js.gzip + weight.inline.js.gzip };
}

/**
 * A page-relative or root-relative URL as a path inside dist/, or null when it
 * points elsewhere (another origin) and cannot be weighed from the build.
 */
export function distPath(url: string, pagePath: string): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(url) || url.startsWith('//')) return null;
  const base = new URL(pagePath, 'http://dist.invalid');
  const resolved = new URL(url, base);
  return decodeURIComponent(resolved.pathname);
}
