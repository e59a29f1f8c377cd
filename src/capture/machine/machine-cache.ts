// The machine's cache of what shice builds from its inputs: the Kubernetes
// binaries, kind and crictl, actionlint, the kind node images and the Docker
// engine that holds them. It lives outside the checkout, as Go's own caches
// do, so that a fresh clone on a machine that has built them once (CI's clean
// clone of main) reuses them; every entry carries a stamp of its inputs and is
// rebuilt when they change. SHICE_CACHE points it elsewhere.
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';

export const CACHE_VARIABLE = 'SHICE_CACHE';

/**
 * `$SHICE_CACHE` (a relative one taken from the folder it is read in, as a shell would), else
 * `$XDG_CACHE_HOME/shice` (only when absolute, as the XDG spec says), else `~/.cache/shice`.
 */
export function machineCacheDir(env: NodeJS.ProcessEnv = process.env, home: string = homedir(), cwd: string = process.cwd()): string {
  const own = env[CACHE_VARIABLE];
  if (own) return resolve(cwd, own);
  const xdg = env.XDG_CACHE_HOME;
  return join(xdg && isAbsolute(xdg) ? xdg : join(home, '.cache'), 'shice');
}

/** The cache of this process's environment. */
export const MACHINE_CACHE = machineCacheDir();
