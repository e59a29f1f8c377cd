// The Open Graph cards already drawn, kept between builds in the machine's
// cache (src/capture/machine/machine-cache.ts): og-cards/<key>.png, where the key is a
// SHA-256 of everything the PNG's bytes follow from (render.ts says what: the
// card's SVG, the bytes of each font it is drawn with, resvg's version and its
// options). A build draws only the cards whose key it has not seen; the same
// card on the same packages is read back, never drawn again.
//
// An entry is written to a temporary file of its own and renamed into place,
// so a reader sees a whole PNG or none; one read back is served only when it is
// a whole PNG of the card's size (signature, IHDR, every chunk's CRC, IEND at
// its end), else it is drawn again and replaced. A folder that cannot be
// written costs the cache, never the card: drawn without it, said once.
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { machineCacheDir } from '../capture/machine/machine-cache.ts';

/** The cache's folder under the machine's cache. */
export const CARD_CACHE_FOLDER = 'og-cards';

/** The key of a card's PNG: a SHA-256 (hex) of what its bytes follow from, in a fixed order. Pure. */
export function cardKey(parts: unknown): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * What is wrong with `bytes` as a PNG of `size`, or null: the signature, an IHDR
 * first with that width and height, every chunk whole with its CRC, and IEND
 * last, at the file's end (a file cut short, or with a byte changed, is not
 * served). Pure.
 */
export function pngProblem(bytes: Buffer, size: { width: number; height: number }): string | null {
  if (bytes.length < SIGNATURE.length || !bytes.subarray(0, SIGNATURE.length).equals(SIGNATURE)) return 'no PNG signature';
  let at = SIGNATURE.length;
  let first = true;
  while (at + 12 <= bytes.length) {
    const length = bytes.readUInt32BE(at);
    const end = at + 12 + length;
    if (end > bytes.length) return 'cut short';
    const type = bytes.toString('latin1', at + 4, at + 8);
    const data = bytes.subarray(at + 8, at + 8 + length);
    if (crc32(bytes.subarray(at + 4, at + 8 + length)) !== bytes.readUInt32BE(at + 8 + length)) return `chunk ${JSON.stringify(type)}: CRC mismatch`;
    if (first) {
      if (type !== 'IHDR' || length < 8) return 'no IHDR first';
      const width = data.readUInt32BE(0);
      const height = data.readUInt32BE(4);
      if (width !== size.width || height !== size.height) return `${width}×${height}, not ${size.width}×${size.height}`;
      first = false;
    }
    if (type === 'IEND') return end === bytes.length ? null : 'bytes after IEND';
    at = end;
  }
  return 'cut short';
}

/** How many cards a cache served and drew (the build's count; the tests'). */
export interface CardCacheCounts {
  read: number;
  drawn: number;
  written: number;
}

/** A folder of cards. `warn` is told once, the first time the folder cannot be written. */
export class CardCache {
  readonly dir: string;
  readonly #size: { width: number; height: number };
  readonly #warn: (line: string) => void;
  #writable = true;
  readonly counts: CardCacheCounts = { read: 0, drawn: 0, written: 0 };

  constructor(dir: string, size: { width: number; height: number }, warn: (line: string) => void = (line) => console.warn(line)) {
    this.dir = dir;
    this.#size = size;
    this.#warn = warn;
  }

  /** The entry's file. */
  file(key: string): string {
    if (!/^[0-9a-f]{64}$/.test(key)) throw new Error(`og:image: a card cache key is a SHA-256 in hex, got ${JSON.stringify(key)}`);
    return join(this.dir, `${key}.png`);
  }

  /** The card of `key`: read back when a whole PNG of its size is there, else drawn by `draw` and kept. */
  png(key: string, draw: () => Buffer): Buffer {
    const file = this.file(key);
    const kept = this.#read(file);
    if (kept) {
      this.counts.read++;
      return kept;
    }
    const png = draw();
    this.counts.drawn++;
    if (this.#writable) this.#write(file, png);
    return png;
  }

  #read(file: string): Buffer | null {
    let bytes: Buffer;
    try {
      bytes = readFileSync(file);
    } catch {
      return null;
    }
    return pngProblem(bytes, this.#size) === null ? bytes : null;
  }

  /** Written whole or not at all: a temporary file of this process's, renamed over the entry. */
  #write(file: string, png: Buffer): void {
    const temporary = `${file}.${process.pid}-${randomBytes(6).toString('hex')}.tmp`;
    try {
      mkdirSync(this.dir, { recursive: true });
      writeFileSync(temporary, png, { flag: 'wx' });
      renameSync(temporary, file);
      this.counts.written++;
    } catch (error) {
      try {
        rmSync(temporary, { force: true });
      } catch {
        // the folder is not there to hold it
      }
      this.#writable = false;
      this.#warn(
        `og:image: the card cache ${this.dir} cannot be written (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); the cards are drawn without it`,
      );
    }
  }
}

let machine: CardCache | undefined;

/** The machine's card cache ($SHICE_CACHE, $XDG_CACHE_HOME/shice or ~/.cache/shice, then og-cards/), one per process. */
export function machineCardCache(size: { width: number; height: number }): CardCache {
  machine ??= new CardCache(join(machineCacheDir(), CARD_CACHE_FOLDER), size);
  return machine;
}
