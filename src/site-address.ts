// Where the built site will be served: its public URL (canonical links, hreflang,
// Open Graph, RSS, the sitemap) and the base path every page lives under. From
// the environment, SHICE_SITE_URL=https://example.org/ or https://example.org/shice/
// (a path makes the base). Pure: the caller passes the environment.

/** The URL a build gets when none is configured: fine for a preview, wrong for publishing. */
export const PLACEHOLDER_SITE_URL = 'https://shice.example/';

export interface SiteAddress {
  /** Origin and base path, ending with a slash: https://example.org/shice/ */
  url: string;
  /** The base path, starting and ending with a slash: '/' or '/shice/'. */
  base: string;
  /** No SHICE_SITE_URL was given: links point at the placeholder. */
  isPlaceholder: boolean;
}

export function siteAddress(env: Readonly<Record<string, string | undefined>>): SiteAddress {
  const given = env.SHICE_SITE_URL?.trim();
  if (!given) return { url: PLACEHOLDER_SITE_URL, base: '/', isPlaceholder: true };
  let parsed: URL;
  try {
    parsed = new URL(given);
  } catch {
    throw new Error(`SHICE_SITE_URL: expected an absolute http(s) URL such as https://example.org/ or https://example.org/shice/, got "${given}"`);
  }
  if (!/^https?:$/.test(parsed.protocol) || parsed.search || parsed.hash || parsed.username) {
    throw new Error(`SHICE_SITE_URL: expected an http(s) URL without query, fragment or credentials, got "${given}"`);
  }
  const base = parsed.pathname.endsWith('/') ? parsed.pathname : `${parsed.pathname}/`;
  return { url: `${parsed.origin}${base}`, base, isPlaceholder: false };
}

/** What a production build on the placeholder URL prints, once. */
export function placeholderWarning(address: SiteAddress): string | null {
  return address.isPlaceholder
    ? `SHICE_SITE_URL is not set: canonical URLs, hreflang, RSS and the sitemap point at the placeholder ${PLACEHOLDER_SITE_URL}. Set SHICE_SITE_URL=https://your.domain/ (or https://your.domain/path/) before publishing; see README, "Deploying".`
    : null;
}
