// The probe of the machine that `npm test` (scripts/test.ts) and the capture's
// preparation (src/capture/command/prepare.ts) both start from: root, the Go on
// PATH, which programs are there, and whether it is Debian's kind with apt-get.
// What each makes of it is pure (tests/support/prerequisites.ts, src/capture/session/preparation.ts).
import { existsSync, readFileSync } from 'node:fs';
import { findProgram } from './kube-bin.ts';
import type { MachineProbe } from './machine-probe.ts';
import { goVersion } from './go-build.ts';

export function readOrNull(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/** This machine as this process's PATH sees it; `alsoHas` answers for a program found some other way (Playwright's own Chromium). */
export function probeMachine(env: NodeJS.ProcessEnv = process.env, alsoHas: (program: string) => boolean = () => false): MachineProbe {
  const go = goVersion(env);
  return {
    platform: process.platform,
    root: process.getuid?.() === 0,
    goVersion: 'version' in go ? go.version : null,
    has: (program) => findProgram(program, env.PATH) !== null || existsSync(program) || alsoHas(program),
    osRelease: readOrNull('/etc/os-release'),
    aptGet: findProgram('apt-get', env.PATH) !== null,
  };
}
