// A curl that sends several requests reuses its connection while the server keeps
// it open: said before any capture, from the definition, for the steps that do.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { load } from 'js-yaml';
import { connectionReuseWarnings, curlRequests } from '../../src/experiment/connection-reuse.ts';
import type { Experiment } from '../../src/experiment/types.ts';
import { experiment074 } from '../support/articles.ts';

/** The argv a committed run of 075 ran: a URL glob of requests, each closing its connection. */
const spread = (
  load(readFileSync(new URL('../../content/articles/075-local-uneven-weights/snapshots/spread-cluster.yaml', import.meta.url), 'utf8')) as { argv: string[] }
).argv;
const curlOf = (argv: string[]) => argv.slice(argv.indexOf('curl'));

test("075's spread step sends many requests, each on a new connection (Connection: close): nothing to say", () => {
  assert.deepEqual(curlRequests(curlOf(spread)), { requests: 'several', closesEach: true });
});

test('the same glob without Connection: close reuses the connection; --globoff, one URL and a header value holding brackets do not count', () => {
  const withoutClose = curlOf(spread).filter((a, i, all) => a !== '--header' && all[i - 1] !== '--header');
  assert.deepEqual(curlRequests(withoutClose), { requests: 'several', closesEach: false });
  const url = withoutClose.at(-1)!;
  assert.deepEqual(curlRequests([...withoutClose.slice(0, -1), '--globoff', url]).requests, 'one');
  assert.deepEqual(curlRequests(['curl', '--max-time', '2', 'http://10.0.0.1:80/a', 'http://10.0.0.1:80/b']).requests, 'several');
  assert.deepEqual(curlRequests(['curl', '--write-out', '[%{http_code}] {x,y}', 'http://10.0.0.1:80/']).requests, 'one');
  assert.deepEqual(curlRequests(['curl', '-X', 'POST', '--user', 'a:b', 'http://10.0.0.1:80/']).requests, 'one', 'option values are no URLs');
});

test('a definition whose curl globs without Connection: close gets one line naming its file, step and the fix; 074 gets none', () => {
  assert.deepEqual(connectionReuseWarnings(experiment074, 'content/articles/074-external-traffic-policy/article.ts'), []);
  const globbed: Experiment = {
    ...experiment074,
    steps: [
      {
        kind: 'exec',
        id: 'spread',
        node: 'control-plane',
        title: 'many requests',
        command: (t) => ['curl', '--silent', `http://${t.ip('worker')}:${t.nodePort('s-cluster')}/[1-100]`],
      },
    ],
  };
  assert.deepEqual(connectionReuseWarnings(globbed, 'content/articles/099-x/article.ts'), [
    'content/articles/099-x/article.ts: step "spread": curl sends several requests and reuses its connection while the server keeps it open, and kube-proxy picks a backend once per connection: give curlArgv header: \'Connection: close\' to make each request a new connection, unless the reuse is what the step measures',
  ]);
});
