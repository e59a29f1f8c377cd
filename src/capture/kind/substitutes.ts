// An image an experiment's manifests name, run as a local image in its place
// where no registry can provide it (nginx:1.27-alpine as Debian's nginx-light).
// The substitution is declared in the experiment (article.ts), applied to copies of the
// manifests the capture writes for itself, and recorded with both names.
import { dump, loadAll } from 'js-yaml';
import type { Localized } from '../../i18n/run-environment.ts';

/** One substitution as the run made it. */
export interface Substitution {
  /** The image the manifests name. */
  image: string;
  /** The local image that ran instead. */
  ranInstead: string;
  /** What the local image is, from what went into it (e.g. Debian's nginx-light 1.22.1-9+deb12u3). */
  what: string;
  note: Localized;
}

const POD_SPEC_PATHS = [['spec'], ['spec', 'template', 'spec'], ['spec', 'jobTemplate', 'spec', 'template', 'spec']];

/** The manifest's text with every container image in `map` replaced; the count says how many were. */
export function substituteImages(text: string, map: ReadonlyMap<string, string>, file: string): { text: string; replaced: number } {
  let replaced = 0;
  let docs: unknown[];
  try {
    docs = loadAll(text);
  } catch (error) {
    throw new Error(`${file}: not YAML (${(error as Error).message.split('\n')[0]})`);
  }
  for (const doc of docs) {
    for (const path of POD_SPEC_PATHS) {
      let spec: unknown = doc;
      for (const key of path) spec = spec && typeof spec === 'object' ? (spec as Record<string, unknown>)[key] : undefined;
      if (!spec || typeof spec !== 'object') continue;
      for (const list of ['initContainers', 'containers'] as const) {
        const containers = (spec as Record<string, unknown>)[list];
        if (!Array.isArray(containers)) continue;
        for (const c of containers as Record<string, unknown>[]) {
          const to = typeof c?.image === 'string' ? map.get(c.image) : undefined;
          if (to !== undefined) {
            c.image = to;
            replaced += 1;
          }
        }
      }
    }
  }
  const out = docs.filter((d) => d !== null && d !== undefined).map((d) => dump(d, { lineWidth: -1 }));
  return { text: `# Written by shice's capture: ${file} with its images substituted as the experiment declares.\n${out.join('---\n')}`, replaced };
}
