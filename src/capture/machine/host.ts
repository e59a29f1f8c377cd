// Facts about the capturing machine that run.yaml records.
import { existsSync, readFileSync } from 'node:fs';
import { arch, platform, release } from 'node:os';
import { gunzipSync } from 'node:zlib';
import { execa } from 'execa';
import type { RunSnapshot } from '../../evidence/schema.ts';

export function hostInfo(): RunSnapshot['host'] {
  return { os: platform(), arch: arch(), kernel: release() };
}

export async function gitInfo(cwd: string): Promise<RunSnapshot['git']> {
  const head = await execa('git', ['rev-parse', 'HEAD'], { cwd, reject: false });
  if (head.exitCode !== 0) return { commit: null, dirty: false };
  const status = await execa('git', ['status', '--porcelain'], { cwd, reject: false });
  return { commit: head.stdout.trim(), dirty: status.stdout.trim() !== '' };
}

/** What the kernel says about IPVS: /proc/net/ip_vs exists when IPVS is built in (or loaded), and /proc/config.gz's line if readable. */
export interface IpvsFacts {
  procNetIpVs: boolean;
  /** The CONFIG_IP_VS line of /proc/config.gz ("# CONFIG_IP_VS is not set", "CONFIG_IP_VS=y"), or null when unreadable. */
  configLine: string | null;
}

/** Reads what this kernel says about IPVS from /proc (kube-proxy's ipvs mode needs it). */
export function readIpvsFacts(): IpvsFacts {
  let configLine: string | null = null;
  try {
    const config = gunzipSync(readFileSync('/proc/config.gz')).toString('utf8');
    configLine =
      config
        .split('\n')
        .find((l) => /^(# )?CONFIG_IP_VS[= ]/.test(l))
        ?.trim() ?? null;
  } catch {
    configLine = null;
  }
  return { procNetIpVs: existsSync('/proc/net/ip_vs'), configLine };
}
