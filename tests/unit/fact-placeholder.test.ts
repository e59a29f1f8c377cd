// The MDX's <Fact> is written as <shicefact ...> and replaced in ProseFinish
// (src/article/render/fact-placeholder.ts): every placeholder, whatever Astro wrote
// into its attributes, becomes exactly what the render function gives for the
// id and variant the author wrote.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spreadAttributes } from 'astro/runtime/server/index.js';
import { FACT_PLACEHOLDER, resolveFactPlaceholders } from '../../src/article/render/fact-placeholder.ts';

/** What Astro's JSX runtime writes for <Fact {...props} /> mapped to the placeholder element (jsx.js renderElement). */
const written = (props: Record<string, unknown>) => `<${FACT_PLACEHOLDER}${String(spreadAttributes(props))}></${FACT_PLACEHOLDER}>`;
const show = (id: string | undefined, run: { environment?: string; variant?: string } = {}) =>
  `[${id ?? '∅'}|${run.environment === undefined ? '' : `${run.environment}/`}${run.variant ?? '∅'}]`;

test('each placeholder becomes the markup of the id, environment and variant the author wrote, the text around it untouched', () => {
  const html = `<p>a ${written({ id: 'node.ip' })} b ${written({ id: 'run.id', variant: 'nftables' })}</p>${written({ id: 'x-1.rc' })}`;
  assert.equal(resolveFactPlaceholders(html, show), '<p>a [node.ip|∅] b [run.id|nftables]</p>[x-1.rc|∅]');
  const other = `${written({ id: 'a', environment: 'lab' })} ${written({ environment: 'lab', id: 'b', variant: 'nftables' })}`;
  assert.equal(resolveFactPlaceholders(other, show), '[a|lab/∅] [b|lab/nftables]');
  assert.equal(resolveFactPlaceholders('<p>no values</p>', show), '<p>no values</p>');
});

test('what Astro escapes in an attribute comes back as written; empty and bare attributes read as empty', () => {
  for (const id of ['a&b', 'q"uote', "apo's", '<tag>', 'plain.id', '']) {
    assert.equal(resolveFactPlaceholders(written({ id }), show), show(id), JSON.stringify(id));
  }
  assert.equal(resolveFactPlaceholders(written({ id: true }), show), show('true'));
  assert.equal(resolveFactPlaceholders(written({}), show), show(undefined));
  assert.equal(resolveFactPlaceholders(written({ id: 'a', variant: '' }), show), show('a', { variant: '' }));
  // Other attributes an author might add are ignored, as <Fact> ignores them.
  assert.equal(resolveFactPlaceholders(written({ class: 'x', id: 'a', 'data-x': '1' }), show), show('a'));
});

test('children of a placeholder (which <Fact> never shows) are dropped, nested ones included', () => {
  const html = `x<${FACT_PLACEHOLDER} id="a">inner <${FACT_PLACEHOLDER} id="b"></${FACT_PLACEHOLDER}> text</${FACT_PLACEHOLDER}>y`;
  assert.equal(resolveFactPlaceholders(html, show), 'x[a|∅]y');
  assert.throws(() => resolveFactPlaceholders(`<${FACT_PLACEHOLDER} id="a">`, show), /unclosed/);
});

test('a self-closed placeholder needs no closing tag', () => {
  assert.equal(resolveFactPlaceholders(`a<${FACT_PLACEHOLDER} id="x"/>b<${FACT_PLACEHOLDER} id="y"></${FACT_PLACEHOLDER}>`, show), 'a[x|∅]b[y|∅]');
});
