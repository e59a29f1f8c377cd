// Hostile input of the third round (issue 46) that needs no lab: requests the preview cannot parse,
// control characters in front matter, article folders and run ids that are no names, files an
// author names outside the checkout, and author files that are malformed. Each asserts behaviour and
// the failure's one line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serveSite } from '../../scripts/lib/site-server.ts';

/** What the server answers to `request` written as it is on a raw socket: the whole answer, as text. */
function raw(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => (answer += chunk));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
    socket.setTimeout(5000, () => socket.destroy(new Error(`no answer to ${JSON.stringify(request)}`)));
    socket.write(request);
  });
}

test('a request whose target is no URL (GET http://[) is answered 400 and the preview keeps serving', async () => {
  const dist = mkdtempSync(join(tmpdir(), 'shice-fault-serve-'));
  writeFileSync(join(dist, 'index.html'), '<p>home</p>\n');
  const { server } = await serveSite({ dist, base: '/', host: '127.0.0.1', port: 0 });
  try {
    const port = (server.address() as { port: number }).port;
    for (const target of ['http://[', 'http://[::1', 'http://a:b:c/', '//[/']) {
      const answer = await raw(port, `GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      assert.match(answer, /^HTTP\/1\.1 400 /, `${target}: ${answer.slice(0, 80)}`);
    }
    // A request line the HTTP parser itself refuses.
    assert.match(await raw(port, 'GET /\x01 HTTP/1.1\r\n\r\n'), /^HTTP\/1\.1 400 /);
    const after = await raw(port, 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    assert.match(after, /^HTTP\/1\.1 200 /);
    assert.match(after, /<p>home<\/p>/);
  } finally {
    await new Promise((resolve) => server.close(resolve));
    rmSync(dist, { recursive: true, force: true });
  }
});
