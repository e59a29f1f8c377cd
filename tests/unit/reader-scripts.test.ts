// The pure parts of the article page's scripts: which section the table of
// contents marks, and what a copy button puts on the clipboard.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { currentSection } from '../../src/article/render/toc.ts';
import { copyText } from '../../src/article/render/copy-text.ts';

test('the current section is the last whose heading has reached the line, none above the first', () => {
  assert.equal(currentSection([120, 900, 2000], 300), 0);
  assert.equal(currentSection([-800, 250, 1300], 300), 1);
  assert.equal(currentSection([-3000, -2000, -10], 300), 2);
  assert.equal(currentSection([400, 900], 300), -1);
  // A heading exactly on the line has reached it.
  assert.equal(currentSection([-50, 300], 300), 1);
  assert.equal(currentSection([], 300), -1);
});

test('a command is copied without the prompt it is shown with, on a node or the host; an output exactly as shown', () => {
  assert.equal(copyText('control-plane$ curl --max-time 3 http://172.18.0.2:30093/', 'command'), 'curl --max-time 3 http://172.18.0.2:30093/');
  assert.equal(copyText('$ kubectl get pods', 'command'), 'kubectl get pods');
  // Only the prompt goes: a later `$ ` is the command's own.
  assert.equal(copyText("worker$ sh -c 'echo $ HOME'", 'command'), "sh -c 'echo $ HOME'");
  const output = '*filter\n:INPUT ACCEPT [0:0]\nworker$ not a prompt\n  indented  \n';
  assert.equal(copyText(output, 'output'), output);
});
