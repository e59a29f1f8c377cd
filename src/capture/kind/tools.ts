// The one way the kind driver calls kind, docker and kubectl: every call with the
// run's environment (the capture's kubeconfig, the run's mark, shice's engine),
// in the project root, under a time limit, judged by checked-run.ts.
import { runJudged, runOrThrow } from '../machine/checked-run.ts';
import { runProcess, runTool, type ProcessResult, type ToolRun } from '../machine/process.ts';
import type { ProviderContext } from '../provider/node-provider.ts';
import { parseDockerVersion } from './tool-output.ts';

export interface ToolCall {
  /** What the call does, for its error ("list kind clusters"). */
  what: string;
  /**
   * `success` (the default): anything but exit 0 is a DriverError naming `what`;
   * `exit`: the exit code is the caller's to judge (missing, killed, interrupted are still errors);
   * `none`: nothing is judged (a preflight check, a probe).
   */
  check?: 'success' | 'exit' | 'none';
  /** The quick limit unless given. */
  timeoutMs?: number;
  ctx?: Pick<ProviderContext, 'signal'>;
  /** Text for the tool's stdin. */
  input?: string;
}

export class KindTools {
  /** Every child's environment: KUBECONFIG is the capture's, never the user's. */
  readonly env: NodeJS.ProcessEnv;
  /** Where every tool runs (the project root). */
  readonly cwd: string;
  private readonly quickMs: number;

  constructor(env: NodeJS.ProcessEnv, cwd: string, quickMs: number) {
    this.env = env;
    this.cwd = cwd;
    this.quickMs = quickMs;
  }

  run(argv: string[], call: ToolCall): Promise<ToolRun> {
    const options = { env: this.env, cwd: this.cwd, timeoutMs: call.timeoutMs ?? this.quickMs, ...(call.input === undefined ? {} : { input: call.input }) };
    if (call.check === 'none') return runTool(argv, { ...options, ...(call.ctx ? { signal: call.ctx.signal } : {}) });
    if (call.check === 'exit') return runJudged(argv, options, call.what, call.ctx);
    return runOrThrow(argv, options, call.what, call.ctx);
  }

  /** A command whose bytes are the result (a step): kept as far as `keepBytes` says, judged by the caller. */
  bytes(argv: string[], limits: { timeoutMs: number; keepBytes?: number }, signal: AbortSignal): Promise<ProcessResult> {
    return runProcess(argv, {
      env: this.env,
      cwd: this.cwd,
      timeoutMs: limits.timeoutMs,
      signal,
      ...(limits.keepBytes ? { keepBytes: limits.keepBytes } : {}),
    });
  }
}

/** Whether `docker version --format '{{json .}}'` printed a server: the daemon answers. */
export function dockerServerUp(stdout: string): boolean {
  try {
    return parseDockerVersion(stdout).server !== null;
  } catch {
    return false;
  }
}
