// Whether a container registry answers from this machine: where one does, the
// kind driver uses kind's official node image and the experiments' own images;
// where none does, the images kind:prepare built locally.
import { request } from 'node:https';

/** Docker Hub's registry API: kind's node images (kindest/node) and most backends live there. */
export const REGISTRY_PROBE_URL = 'https://registry-1.docker.io/v2/';

/** True when the registry sends any HTTP answer (it answers 401 to an anonymous /v2/) within the time limit. */
export function registryReachable(url = REGISTRY_PROBE_URL, timeoutMs = 5000): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(url, { method: 'GET', timeout: timeoutMs }, (res) => {
      res.resume();
      resolve(true);
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve(false));
    req.end();
  });
}
