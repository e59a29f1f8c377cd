// The backend image an experiment's pods run where they cannot pull their own:
// Debian's nginx-light, laid out like the nginx image.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RECIPE, type BuildKit } from './build-kit.ts';
import type { LocalImage } from './local-images.ts';
import * as r from './recipe.ts';

/** Debian's nginx-light, laid out like the nginx image: conf.d for the server blocks, logs to the container's output. */
export async function buildNginxBackend(kit: BuildKit, minbase: string, host: { codename: string }): Promise<LocalImage> {
  const conf = r.backendNginxConf();
  const tag = `shice/nginx-light:${host.codename}-${r.stamp({ recipe: RECIPE, minbase, packages: r.BACKEND_PACKAGES.join(' '), conf })}`;
  if (!(await kit.present(tag))) {
    const stage = kit.freshStage('nginx');
    mkdirSync(join(stage, 'etc/nginx'), { recursive: true });
    writeFileSync(join(stage, 'etc/nginx/nginx.conf'), conf);
    kit.log(`building ${tag} (Debian's nginx-light)`);
    await kit.inContainer({
      from: minbase,
      tag,
      packages: r.BACKEND_PACKAGES,
      stage,
      steps: [
        ['rm', '-f', '/etc/nginx/sites-enabled/default'],
        ['mkdir', '-p', '/etc/nginx/conf.d'],
        ['ln', '-sf', '/dev/stdout', '/var/log/nginx/access.log'],
        ['ln', '-sf', '/dev/stderr', '/var/log/nginx/error.log'],
      ],
      finish: async () => ({ debian: host.codename }),
      // As the nginx image: nginx in the foreground, stopped gracefully by SIGQUIT.
      config: { cmd: ['nginx', '-g', 'daemon off;'], stopSignal: 'SIGQUIT', expose: [80] },
    });
    rmSync(stage, { recursive: true, force: true });
  } else {
    kit.log(`backend image up to date (${tag})`);
  }
  return kit.localImage(tag);
}
