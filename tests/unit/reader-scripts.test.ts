// The pure parts of the article page's scripts: which section the table of
// contents marks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { currentSection } from '../../src/article/render/toc.ts';

test('the current section is the last whose heading has reached the line, none above the first', () => {
  assert.equal(currentSection([120, 900, 2000], 300), 0);
  assert.equal(currentSection([-800, 250, 1300], 300), 1);
  assert.equal(currentSection([-3000, -2000, -10], 300), 2);
  assert.equal(currentSection([400, 900], 300), -1);
  // A heading exactly on the line has reached it.
  assert.equal(currentSection([-50, 300], 300), 1);
  assert.equal(currentSection([], 300), -1);
});
