// What kind:prepare built and where it keeps it: the record the driver picks its
// local node image and backends from, and the folder of the tools it built.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MACHINE_CACHE } from '../../machine/machine-cache.ts';
import { DriverError } from '../../provider/node-provider.ts';

/** kind and crictl, built from their modules. */
export const KIND_TOOLS_DIR = join(MACHINE_CACHE, 'kind', 'bin');
/** What the last successful prepare built: the driver picks its local images from here. */
export const IMAGES_RECORD = join(MACHINE_CACHE, 'kind', 'images.json');

/** The backends an experiment may declare as a substitute for an image it cannot pull. */
export const BACKEND_RECIPES = ['debian-nginx-light'] as const;
export type BackendRecipe = (typeof BACKEND_RECIPES)[number];

export interface LocalImage {
  /** The tag to run it by. */
  name: string;
  id: string;
  /** What went into it: versions as the packages and tools reported them. */
  inputs: Record<string, string>;
}

export interface ImagesRecord {
  builtAt: string;
  kind: string;
  /** The node image of each release prepared, by release ("v1.34.4"). */
  nodes: Record<string, LocalImage>;
  backends: Partial<Record<BackendRecipe, LocalImage>>;
}

export function readImagesRecord(): ImagesRecord | null {
  const file = IMAGES_RECORD;
  if (!existsSync(file)) return null;
  let record: Partial<ImagesRecord>;
  try {
    record = JSON.parse(readFileSync(file, 'utf8')) as Partial<ImagesRecord>;
  } catch (error) {
    throw new DriverError(`${file}: not a record of kind:prepare's images (${(error as Error).message}); run npm run kind:prepare again`);
  }
  // A record from before node images were kept per release names one node image: none is known by release.
  return { builtAt: record.builtAt ?? '', kind: record.kind ?? '', nodes: record.nodes ?? {}, backends: record.backends ?? {} };
}
