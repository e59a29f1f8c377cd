// The site's own English (interface strings, the evidence blocks' words, the names of
// steps and runs) writes apostrophes one way: curly (’), as typeset prose does. A
// straight one (') beside them read as a mistake: 18 straight against 72 curly on 074's page.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ui } from '../../src/i18n/ui.ts';
import { evidenceStrings } from '../../src/i18n/evidence.ts';
import { site } from '../../src/site.config.ts';
import { PACKET_PATH_WORDS } from '../../src/article/render/packet-path.ts';
import { loadSnapshots } from '../../src/evidence/load.ts';
import { stepName } from '../../src/article/render/step-name.ts';
import { stepNamePieces } from '../../src/i18n/step-names.ts';

/** Every string in a value, with the path it is at. */
function strings(value: unknown, path: string): { path: string; text: string }[] {
  if (typeof value === 'string') return [{ path, text: value }];
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([key, v]) => strings(v, `${path}.${key}`));
  return [];
}

/** The English the site writes itself, besides what articles and runs write. */
function siteEnglish(): { path: string; text: string }[] {
  const run = loadSnapshots('content/articles/074-external-traffic-policy/snapshots');
  const names = run.run.steps.map((id) =>
    stepNamePieces(stepName(run.steps.get(id)!, run.run), 'en')
      .map((p) => ('text' in p ? p.text : ''))
      .join(''),
  );
  return [
    ...strings(ui('en'), 'ui'),
    ...strings(evidenceStrings('en'), 'evidence'),
    ...strings({ title: site.title.en, description: site.description.en }, 'site'),
    ...strings(PACKET_PATH_WORDS.en, 'packetPath'),
    ...strings(names, 'stepNames'),
  ];
}

test('the site’s English uses curly apostrophes and quotes only, and has some', () => {
  const all = siteEnglish();
  assert.ok(all.length > 80, `found ${all.length} strings`);
  const straight = all.filter((s) => /['"]/.test(s.text)).map((s) => `${s.path}: ${s.text}`);
  assert.deepEqual(straight, []);
  assert.ok(
    all.some((s) => s.text.includes('’')),
    'apostrophes are written, curly',
  );
});
