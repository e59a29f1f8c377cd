// Where articles live and how their experiment is loaded.
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Experiment } from '../experiment/types.ts';

export const ARTICLES_DIR = 'content/articles';

export async function listArticleSlugs(root: string): Promise<string[]> {
  const dir = join(root, ARTICLES_DIR);
  const entries = await readdir(dir, { withFileTypes: true });
  const slugs: string[] = [];
  for (const entry of entries) {
    if (!entry.isDirectory()) continue;
    try {
      await stat(join(dir, entry.name, 'experiment.ts'));
      slugs.push(entry.name);
    } catch {
      // an article without an experiment has nothing to capture
    }
  }
  return slugs.sort();
}

export function articleDir(root: string, slug: string): string {
  return join(root, ARTICLES_DIR, slug);
}

export async function loadExperiment(root: string, slug: string): Promise<Experiment> {
  const file = join(articleDir(root, slug), 'experiment.ts');
  const module = (await import(pathToFileURL(file).href)) as { experiment?: Experiment };
  if (!module.experiment) throw new Error(`${file}: expected an export named "experiment"`);
  if (module.experiment.slug !== slug) {
    throw new Error(`${file}: field "slug": expected "${slug}" (the folder name), got "${module.experiment.slug}"`);
  }
  return module.experiment;
}
