// The file between the lab's kube-proxy stand-in (writer) and its health-check
// servers (readers): the local endpoint count of one Service on one node.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { HealthCheckState } from '../kubeproxy/health.ts';

/** The state kube-proxy's last sync left; an unreadable file reads as an unhealthy proxy with no endpoints. */
export function readHealthState(file: string, report: (problem: string) => void): HealthCheckState {
  try {
    const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
    if (typeof parsed === 'object' && parsed !== null) {
      const { localEndpoints, serviceProxyHealthy } = parsed as Record<string, unknown>;
      if (typeof localEndpoints === 'number' && Number.isInteger(localEndpoints) && localEndpoints >= 0 && typeof serviceProxyHealthy === 'boolean') {
        return { localEndpoints, serviceProxyHealthy };
      }
    }
    report(`${file}: expected {"localEndpoints": <count>, "serviceProxyHealthy": <bool>}`);
  } catch (error) {
    report(`${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  return { localEndpoints: 0, serviceProxyHealthy: false };
}

/** Replaces the state file in one step, so a request never reads half of it. */
export function writeHealthState(file: string, state: HealthCheckState): void {
  writeFileSync(`${file}.tmp`, `${JSON.stringify(state)}\n`);
  renameSync(`${file}.tmp`, file);
}
