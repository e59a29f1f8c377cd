// The `articles` collection: content/articles/<slug>/{zh,en}.mdx. An entry's id
// is `<slug>/<lang>`; src/i18n/editions.ts turns ids into pages per language.
import { defineCollection } from 'astro:content';
import { glob } from 'astro/loaders';
import { articleFrontmatterSchema } from './i18n/frontmatter.ts';

const articles = defineCollection({
  loader: glob({
    base: './content/articles',
    pattern: '*/{zh,en}.mdx',
    // The folder is the slug and the file name the language: keep both, unslugified.
    generateId: ({ entry }) => entry.replace(/\.mdx$/, ''),
  }),
  schema: articleFrontmatterSchema,
});

export const collections = { articles };
