// The public URL and base path come from SHICE_SITE_URL; without it, the
// placeholder, and a production build says so.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PLACEHOLDER_SITE_URL, placeholderWarning, siteAddress } from '../../src/site-address.ts';
import { withTrailingSlash } from '../../src/i18n/urls.ts';

test('no SHICE_SITE_URL: the placeholder at the root, and a warning that names the variable', () => {
  const address = siteAddress({});
  assert.deepEqual(address, { url: PLACEHOLDER_SITE_URL, base: '/', isPlaceholder: true });
  assert.match(placeholderWarning(address)!, /SHICE_SITE_URL is not set.*https:\/\/shice\.example\//);
});

test('an origin, with or without its slash, is served at the root', () => {
  assert.deepEqual(siteAddress({ SHICE_SITE_URL: 'https://measured.example.org' }), { url: 'https://measured.example.org/', base: '/', isPlaceholder: false });
  assert.equal(placeholderWarning(siteAddress({ SHICE_SITE_URL: 'https://measured.example.org/' })), null);
});

test('a path in the URL is the base path', () => {
  assert.deepEqual(siteAddress({ SHICE_SITE_URL: 'https://user.github.io/shice' }), {
    url: 'https://user.github.io/shice/',
    base: '/shice/',
    isPlaceholder: false,
  });
});

test('a URL that cannot be a site root is refused, naming the variable', () => {
  assert.throws(() => siteAddress({ SHICE_SITE_URL: 'measured.example.org' }), /SHICE_SITE_URL: expected an absolute http\(s\) URL/);
  assert.throws(() => siteAddress({ SHICE_SITE_URL: 'ftp://measured.example.org/' }), /SHICE_SITE_URL: expected an http\(s\) URL without query/);
  assert.throws(() => siteAddress({ SHICE_SITE_URL: 'https://measured.example.org/?a=1' }), /without query/);
});

test('sitemap URLs end with a slash like the pages; files keep their name', () => {
  assert.equal(withTrailingSlash('https://x.org/shice/en'), 'https://x.org/shice/en/');
  assert.equal(withTrailingSlash('https://x.org/a/'), 'https://x.org/a/');
  assert.equal(withTrailingSlash('https://x.org/rss.xml'), 'https://x.org/rss.xml');
  assert.equal(withTrailingSlash('https://x.org/a/og.png'), 'https://x.org/a/og.png');
  // A page whose last segment is a Kubernetes version is a page, not a file.
  assert.equal(withTrailingSlash('https://x.org/074/run/v1.34'), 'https://x.org/074/run/v1.34/');
});
