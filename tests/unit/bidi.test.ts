// Bidi controls from a snapshot reach the page shown, not obeyed
// (src/article/render/bidi.ts): in a bound value, its data-raw, a raw output
// block as the highlighter writes it; scripts and styles are left alone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bidiEscape, isolateBidiControls } from '../../src/article/render/bidi.ts';
import { factHtml } from '../../src/article/render/fact-html.ts';
import { highlight } from '../../src/article/render/highlight.ts';

const CONTROLS = ['\u202A', '\u202B', '\u202C', '\u202D', '\u202E', '\u2066', '\u2067', '\u2068', '\u2069', '\u200E', '\u200F', '\u061C'];
const shown = (c: string) => `<span class="bidi-control" data-ui>${bidiEscape(c)}</span>`;

test('every bidi control in a bound value becomes its visible escape; the value around it stays in order', () => {
  for (const c of CONTROLS) {
    const html = isolateBidiControls(factHtml({ id: 'pod.name', step: 'run', value: `web${c}exe.txt`, raw: `web${c}exe.txt` }));
    assert.equal(html, `<span data-fact="pod.name" data-step="run" data-raw="web${bidiEscape(c)}exe.txt">web${shown(c)}exe.txt</span>`, bidiEscape(c));
    assert.doesNotMatch(html, /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/);
  }
  assert.equal(bidiEscape('\u202E'), '\\u202E');
});

test('a raw output block as the highlighter writes it shows the controls too', async () => {
  const html = isolateBidiControls(await highlight('t', 'HTTP/1.1 200 OK\nX-Name: ab\u202Edc\u2066x\u2069\n', 'http'));
  assert.doesNotMatch(html, /[\u202E\u2066\u2069]/);
  assert.ok(html.includes(shown('\u202E')) && html.includes(shown('\u2066')) && html.includes(shown('\u2069')));
});

test('HTML without a control is returned as it is; scripts, styles and comments are not text', () => {
  const plain = '<p title="a">x &amp; y</p>';
  assert.equal(isolateBidiControls(plain), plain);
  const code = '<script>const s = "\u202E";</script><style>.a::after{content:"\u202E"}</style><!-- \u202E --><p>\u202E</p>';
  assert.equal(
    isolateBidiControls(code),
    `<script>const s = "\u202E";</script><style>.a::after{content:"\u202E"}</style><!-- \u202E --><p>${shown('\u202E')}</p>`,
  );
});
