// Facts about the capturing machine that run.yaml records.
import { arch, platform, release } from 'node:os';
import { execa } from 'execa';
import type { RunSnapshot } from '../evidence/schema.ts';

export function hostInfo(): RunSnapshot['host'] {
  return { os: platform(), arch: arch(), kernel: release() };
}

export async function gitInfo(cwd: string): Promise<RunSnapshot['git']> {
  const head = await execa('git', ['rev-parse', 'HEAD'], { cwd, reject: false });
  if (head.exitCode !== 0) return { commit: null, dirty: false };
  const status = await execa('git', ['status', '--porcelain'], { cwd, reject: false });
  return { commit: head.stdout.trim(), dirty: status.stdout.trim() !== '' };
}
