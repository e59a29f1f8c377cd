// The `articles` collection: content/articles/<slug>/{zh,en}.mdx. An entry's id
// is `<slug>/<lang>`; src/i18n/editions.ts turns ids into pages per language.
// The `evidence` collection: content/articles/<slug>/evidence.{zh,en}.mdx, each
// article's evidence page in one language, its id `<slug>/<lang>` too.
import { defineCollection } from 'astro:content';
import { glob } from 'astro/loaders';
import { articleFrontmatterSchema, evidenceFrontmatterSchema } from './i18n/frontmatter.ts';

const articles = defineCollection({
  loader: glob({
    base: './content/articles',
    pattern: '*/{zh,en}.mdx',
    // The folder is the slug and the file name the language: keep both, unslugified.
    generateId: ({ entry }) => entry.replace(/\.mdx$/, ''),
  }),
  schema: articleFrontmatterSchema,
});

const evidence = defineCollection({
  loader: glob({
    base: './content/articles',
    pattern: '*/evidence.{zh,en}.mdx',
    generateId: ({ entry }) => entry.replace(/evidence\.(zh|en)\.mdx$/, '$1'),
  }),
  schema: evidenceFrontmatterSchema,
});

export const collections = { articles, evidence };
