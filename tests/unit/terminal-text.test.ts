import { test } from 'node:test';
import assert from 'node:assert/strict';
import { quoted, shownName, terminalSafe } from '../../src/evidence/terminal-text.ts';

test('bidi controls are escaped, so a line reads in the order the file holds it', () => {
  for (const code of [0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0x200e, 0x200f, 0x061c]) {
    const c = String.fromCharCode(code);
    assert.equal(terminalSafe(`a${c}b`), `a\\u${code.toString(16).padStart(4, '0')}b`);
  }
  assert.equal(terminalSafe('client=10.0.0.1\u202e82 tixe'), 'client=10.0.0.1\\u202e82 tixe');
});

test('terminal escapes, carriage returns and C1 controls are escaped; line feeds, tabs and other text stay', () => {
  assert.equal(terminalSafe('\u001b[2Jcleared\rover\u0000\u007f\u009b'), '\\x1b[2Jcleared\\x0dover\\x00\\x7f\\x9b');
  assert.equal(terminalSafe('第一行\n\tsecond: 你好 é'), '第一行\n\tsecond: 你好 é');
  assert.equal(terminalSafe('a\u2028b'), 'a\\u2028b');
});

test('quoted: typed input as one JSON string, every control a terminal acts on escaped, and JSON.parse gives it back', () => {
  const cases: Array<[string, string]> = [
    ['076-a\nnew: created x', '"076-a\\nnew: created x"'],
    ['a\rb\tc', '"a\\rb\\tc"'],
    ['\u001b[2J', '"\\u001b[2J"'],
    ['a\u007fb\u0085c\u009bd', '"a\\u007fb\\u0085c\\u009bd"'],
    ['safe\u202eexe\u2066\u200f', '"safe\\u202eexe\\u2066\\u200f"'],
    ['a\u2028b\u2029c', '"a\\u2028b\\u2029c"'],
    ['say "hi" \\ 你好', '"say \\"hi\\" \\\\ 你好"'],
  ];
  for (const [input, expected] of cases) {
    const shown = quoted(input);
    assert.equal(shown, expected);
    assert.doesNotMatch(shown, /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/, 'nothing raw is left');
    assert.equal(JSON.parse(shown), input);
  }
});

test('shownName: a name from the filesystem as it is when it only prints, quoted when it holds a line feed, a tab, ESC or a bidi control', () => {
  assert.equal(shownName('runs/074-external-traffic-policy'), 'runs/074-external-traffic-policy');
  assert.equal(shownName('名字 with spaces'), '名字 with spaces');
  assert.equal(shownName('a\nb'), '"a\\nb"');
  assert.equal(shownName('a\u001b[31m'), '"a\\u001b[31m"');
  assert.equal(shownName('tab\there'), '"tab\\there"');
  assert.equal(shownName('x\u202ey'), '"x\\u202ey"');
});
