// A committed run is read on every machine that builds the site: nothing in it may
// name a path of the machine that captured it (a checkout, a home or temporary
// folder). Commands entered into nodes name the nodes' own paths, which are the
// run's (/var/run/netns/…, kube-proxy's rules); kubectl runs with paths relative
// to the project, and a recreated pod's manifest goes on stdin.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const articles = fileURLToPath(new URL('../../content/articles/', import.meta.url));
/** Where a capturing machine keeps checkouts and scratch files; a node's own paths are none of these. */
const MACHINE_PATH = /(?:^|[\s"'=:])\/(?:work|root|home|Users|tmp)\//m;

test('no committed snapshot names a path of the machine that captured it', () => {
  const found: string[] = [];
  for (const slug of readdirSync(articles)) {
    for (const folder of readdirSync(join(articles, slug)).filter((n) => /^snapshots(\.|$)/.test(n))) {
      for (const file of readdirSync(join(articles, slug, folder))) {
        const text = readFileSync(join(articles, slug, folder, file), 'utf8');
        const line = text.split('\n').find((l) => MACHINE_PATH.test(l));
        if (line !== undefined) found.push(`${slug}/${folder}/${file}: ${line.trim()}`);
      }
    }
  }
  assert.deepEqual(found, []);
});
