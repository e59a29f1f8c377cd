import { test } from 'node:test';
import assert from 'node:assert/strict';
import { factHtml, mayWrap } from '../../src/article/render/fact-html.ts';

test('a fact made of words may wrap; a token (an address, a port, a path) never breaks', () => {
  // Chinese text has no spaces to break at: without this it ran off a phone's screen (the run record's stand-in list).
  assert.equal(mayWrap('节点的临时存储容量是存放其状态目录的文件系统的大小。'), true);
  assert.equal(mayWrap('SIGQUIT, grace 30 s'), true);
  for (const token of ['172.18.0.3', '31450', 'pod.status.containerStatuses[].image', 'kx-main-worker']) assert.equal(mayWrap(token), false, token);
  assert.equal(
    factHtml({ id: 'run.standIn.3.zh', step: 'run', value: '节点的临时存储容量。' }),
    '<span class="wraps" data-fact="run.standIn.3.zh" data-step="run">节点的临时存储容量。</span>',
  );
  assert.equal(factHtml({ id: 'node.worker.ip', step: 'run', value: '172.18.0.3' }), '<span data-fact="node.worker.ip" data-step="run">172.18.0.3</span>');
});
