// A stand-in's sources (run.yaml's environment.standIn[].from) are English in every
// snapshot; a Chinese page needs its own words for each of them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load } from 'js-yaml';
import { standInSource } from '../../src/i18n/stand-in-sources.ts';
import { checkChineseProse } from '../../src/article/check/zh-copy.ts';
import { standInDecisions } from '../../src/capture/lab/kubelet/decisions.ts';
import { readinessProbeOf } from '../../src/capture/lab/kubelet/probe.ts';
import type { RunSnapshot } from '../../src/evidence/schema.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** Every `from` of every committed run, with the file it is in. */
function committedSources(): { from: string; file: string }[] {
  const articles = join(root, 'content/articles');
  return readdirSync(articles).flatMap((slug) =>
    readdirSync(join(articles, slug))
      .filter((d) => d.startsWith('snapshots'))
      .flatMap((d) => {
        const file = `content/articles/${slug}/${d}/run.yaml`;
        const run = load(readFileSync(join(root, file), 'utf8')) as RunSnapshot;
        return (run.environment.standIn ?? []).filter((s) => s.from !== undefined).map((s) => ({ from: s.from!, file }));
      }),
  );
}

/** A rendering as the copy check reads it: a code span is a Latin word. */
const asProse = (pieces: { text: string; code: boolean }[]) => pieces.map((p) => (p.code ? 'code' : p.text)).join('');

test('every source a committed run read a value from has Chinese words, which pass the copy check', () => {
  const sources = committedSources();
  assert.ok(new Set(sources.map((s) => s.from)).size >= 9, `the committed runs name their sources (found ${sources.length})`);
  for (const { from, file } of sources) {
    const zh = standInSource(from, 'zh');
    assert.ok(zh, `${file}: no Chinese for ${JSON.stringify(from)} (add it to src/i18n/stand-in-sources.ts)`);
    const prose = asProse(zh);
    assert.match(prose, /\p{Script=Han}/u, from);
    assert.deepEqual(checkChineseProse(prose), [], `${from} -> ${prose}`);
  }
});

test('what the lab kubelet reads today has Chinese words too, the binary it ran named as code', () => {
  const container = { name: 'nginx', image: 'nginx', readinessProbe: { httpGet: { path: '/', port: 80 } } };
  const decisions = standInDecisions({
    capacity: { cpu: 2, memoryKiB: 1, ephemeralStorageKiB: 1 },
    mtu: 1500,
    whatRan: { binary: '/usr/local/sbin/nginx', version: 'nginx version: nginx/1.22.1', debianPackage: 'nginx 1.22.1' },
    pods: [{ pod: 'default/backend', hostname: 'backend', probe: readinessProbeOf(container, 'backend'), image: 'x' }],
    stops: [],
  });
  const read = decisions.filter((d) => d.from !== undefined);
  assert.ok(read.length >= 5);
  for (const d of read) assert.ok(standInSource(d.from!, 'zh'), d.from);
  assert.deepEqual(
    standInSource('/usr/local/sbin/nginx -v; dpkg-query --search, --show', 'zh')!
      .filter((p) => p.code)
      .map((p) => p.text),
    ['/usr/local/sbin/nginx -v', 'dpkg-query --search', '--show'],
  );
});

test('English pages show the source as the run wrote it; an unknown source has no Chinese words made up for it', () => {
  assert.equal(standInSource("the Node's spec.podCIDR (kube-controller-manager's node IPAM)", 'en'), undefined);
  assert.equal(standInSource('something a future stand-in reads', 'zh'), undefined);
});
