// The plain variant's MDX for one article, its pages and its evidence pages:
// one untimed probe build shows what every component of them renders to, and
// plainMdx writes that back into the author's MDX as static markup.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { articlePath, evidencePath } from '../../src/i18n/urls.ts';
import { copySlug, pointArticleLinksAt } from './copies.ts';
import { plainMdx, probeMdx } from '../plain/plain-mdx.ts';
import { astroBuild } from './astro-build.ts';
import { createProjectCopy, readArticleMdx, writeProbeCopy } from './temp-project.ts';
import { BENCH_CONFIG } from './variant-files.ts';

export interface PlainSources {
  /** File name (zh.mdx, en.mdx, evidence.zh.mdx, ...) -> the plain MDX of that page, code blocks fenced (highlighted by the build). */
  highlighted: Map<string, string>;
  /** The same with code blocks as static <pre> text: no highlighting at all. */
  unhighlighted: Map<string, string>;
}

export async function plainSources(root: string, slug: string, options: { timeoutMs: number; cancelSignal?: AbortSignal }): Promise<PlainSources> {
  // The probe renders copy 1, the page the sites are compared on (its run ids in the badge); its links point at itself, as in every copy (copies.ts).
  const copy = copySlug(slug, 1);
  const sources = new Map(
    [...(await readArticleMdx(root, slug, 'to write a plain variant of'))].map(([name, mdx]) => [
      name,
      {
        ...mdx,
        text: pointArticleLinksAt(mdx.text, mdx.file, copy),
        html: `dist${(mdx.page === 'article' ? articlePath : evidencePath)(mdx.lang, copy)}index.html`,
      },
    ]),
  );

  const probe = await createProjectCopy(root, 'probe', slug);
  try {
    await writeProbeCopy(root, probe.dir, slug, new Map([...sources].map(([name, s]) => [name, probeMdx(s.file, s.text)])));
    await astroBuild(probe.dir, { config: BENCH_CONFIG, ...options });
    const plain: PlainSources = { highlighted: new Map(), unhighlighted: new Map() };
    for (const [name, s] of sources) {
      const html = await readFile(join(probe.dir, s.html), 'utf8');
      const page = `the probe build's ${s.html}`;
      plain.highlighted.set(name, plainMdx(s.file, s.text, page, html));
      plain.unhighlighted.set(name, plainMdx(s.file, s.text, page, html, { staticCode: true }));
    }
    return plain;
  } finally {
    await probe.remove();
  }
}
