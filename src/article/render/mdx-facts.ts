// The MDX's <Fact>, bound as the MDX compiles. A hast plugin of the MDX pipeline
// (astro.config.mjs) replaces each <Fact id environment variant /> of an
// article's MDX with the value's element, built as hast nodes (fact-html.ts's
// factElement): the pipeline writes and escapes it as it does the prose around
// it, and the page gets the markup Fact.astro writes, without a component per
// value or a pass over the finished HTML. The values are those of the article
// the file belongs to (content/articles/<slug>/[evidence.]<lang>.mdx), marked in
// the language of its frontmatter, from the evidence the build's check derived
// (../evidence/mdx-evidence.ts); `npm run dev` compiles an article's MDX again
// when its evidence changes (../check/integration.ts).
import { sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SatteriProcessorOptions } from '@astrojs/markdown-satteri';
import { LANGS, type Lang } from '../../site.config.ts';
import { mdxEvidence } from '../evidence/mdx-evidence.ts';
import { boundFact, type FactScope, type RunRef } from './context.ts';
import { stepOutputId } from './anchors.ts';
import { DECLARED_STEP, RUN_STEP } from '../../evidence/facts.ts';
import { factElement, type HastElement } from './fact-html.ts';

/** What the MDX pipeline takes in `hastPlugins`: a plugin, or a function of the file that gives one (or none). */
type HastPluginEntry = NonNullable<SatteriProcessorOptions['hastPlugins']>[number];

/** Whether a <Fact>'s parent is a headline's value (`<p class="headline-value">` in the MDX). */
function inHeadline(parent: unknown): boolean {
  const p = parent as
    { type?: string; name?: string; tagName?: string; attributes?: JsxElement['attributes']; properties?: { className?: unknown } } | undefined;
  if (!p) return false;
  if (p.type === 'element') return p.tagName === 'p' && Array.isArray(p.properties?.className) && p.properties.className.includes('headline-value');
  const cls = p.attributes?.find((a) => a.name === 'class' || a.name === 'className')?.value;
  return p.name === 'p' && typeof cls === 'string' && cls.split(/\s+/).includes('headline-value');
}

/** An MDX JSX element as the plugin reads it. */
interface JsxElement {
  attributes: ReadonlyArray<{ type: string; name?: string; value?: string | { type: string; value: string } | null }>;
  position?: { start: { line: number; column: number } };
}

/** The article an MDX file belongs to: the project it is in, the article's slug, and the file as messages name it. */
export function articleMdx(path: string): { root: string; slug: string; file: string } | null {
  const m = /^(.*)\/(content\/articles\/([^/]+)\/(?:evidence\.)?[a-z]+\.mdx)$/.exec(path.split(sep).join('/'));
  return m ? { root: m[1]!, slug: m[3]!, file: m[2]! } : null;
}

/** A literal attribute of a <Fact>: its text ('' when bare), undefined when absent. */
function literal(node: JsxElement, name: string): string | undefined {
  const attribute = node.attributes.find((a) => a.type === 'mdxJsxAttribute' && a.name === name);
  if (!attribute) return undefined;
  return typeof attribute.value === 'string' ? attribute.value : '';
}

/** The attributes a <Fact> is bound by. */
const READ = ['id', 'version', 'environment', 'variant'];

/** Why a <Fact> cannot be bound as the MDX compiles: an attribute it is bound by written as an expression ({...}), or a spread. */
function expressionProblem(node: JsxElement): string | undefined {
  const expression = node.attributes.find((a) => a.type !== 'mdxJsxAttribute' || (READ.includes(a.name!) && a.value !== null && typeof a.value === 'object'));
  if (!expression) return undefined;
  const written = expression.type === 'mdxJsxAttribute' ? `${expression.name}={...}` : '{...}';
  return `<Fact ${written}>: expected literal attributes (id="..." version="..." environment="..." variant="..."); the value is bound when the MDX compiles`;
}

/**
 * The plugin: for an article's MDX, every <Fact> (in a sentence or on a line of its own) becomes the element
 * of the value it names, in the run it names; another MDX file is left alone.
 */
export function factBinding(): HastPluginEntry {
  return (context) => {
    const mdx = context.fileURL ? articleMdx(fileURLToPath(context.fileURL)) : null;
    if (!mdx) return null;
    let evidence: ReturnType<typeof mdxEvidence> | undefined;
    const bind = async (
      node: JsxElement,
      ctx: { data: { astro?: { frontmatter?: Record<string, unknown> } }; parent(node: unknown): unknown },
    ): Promise<HastElement> => {
      const at = node.position ? `${mdx.file}:${node.position.start.line}:${node.position.start.column}` : mdx.file;
      const problem = expressionProblem(node);
      if (problem) throw new Error(`${at}: ${problem}`);
      const lang = ctx.data.astro?.frontmatter?.lang;
      if (!LANGS.includes(lang as Lang)) throw new Error(`${mdx.file}: frontmatter "lang": ${JSON.stringify(lang)}; expected one of ${LANGS.join(', ')}`);
      // Read once per file, and only for a file that binds a value.
      evidence ??= mdxEvidence(mdx.root, mdx.slug);
      const scope: FactScope = { evidence: await evidence, lang: lang as Lang, file: at };
      const version = literal(node, 'version');
      const environment = literal(node, 'environment');
      const variant = literal(node, 'variant');
      const ref: RunRef = {
        ...(version === undefined ? {} : { version }),
        ...(environment === undefined ? {} : { environment }),
        ...(variant === undefined ? {} : { variant }),
      };
      const { fact, binding, declared } = boundFact(scope, literal(node, 'id'), ref);
      const element = factElement(fact, binding, declared);
      // A headline value is one tap from the raw output that decided it: its step's output in the page's
      // <Measured> block (a link into a folded block opens it). Values of another run, of run.yaml or
      // declared by a manifest have no output of this page to link to.
      if (binding !== undefined || fact.step === RUN_STEP || fact.step === DECLARED_STEP || !inHeadline(ctx.parent(node))) return element;
      return {
        type: 'element',
        tagName: 'a',
        properties: { href: `#${stepOutputId(fact.step)}`, className: ['headline-link'], dataStep: fact.step },
        children: [element],
      };
    };
    return {
      name: 'shice-fact',
      options: { position: true },
      mdxJsxTextElement: { filter: ['Fact'], visit: bind },
      mdxJsxFlowElement: { filter: ['Fact'], visit: bind },
    };
  };
}
