// The one place the kind driver starts processes: argv arrays through execa,
// the capture's kubeconfig in the environment, a bound on every call, and the
// abort signal wired to each child.
import { execa } from 'execa';

export interface ToolRun {
  argv: string[];
  /** null when the process did not exit by itself (missing, killed, timed out). */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  startedAt: string;
  durationMs: number;
  /** The executable was not found on PATH. */
  missing: boolean;
  canceled: boolean;
  timedOut: boolean;
}

export interface RunOptions {
  env: NodeJS.ProcessEnv;
  /** Relative paths in argv (the capture's kubeconfig) resolve against this folder. */
  cwd?: string;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Text for the child's stdin (a file's content for `docker exec -i ... tee FILE`); stdin is closed otherwise. */
  input?: string;
}

export async function runTool(argv: string[], options: RunOptions): Promise<ToolRun> {
  const [file, ...args] = argv;
  if (!file) throw new Error('runTool: empty argv');
  const startedAt = new Date();
  const started = performance.now();
  const result = await execa(file, args, {
    env: options.env,
    ...(options.cwd ? { cwd: options.cwd } : {}),
    // The environment is built whole by the driver (KUBECONFIG pinned to the capture's file).
    extendEnv: false,
    reject: false,
    ...(options.input !== undefined ? { input: options.input } : { stdin: 'ignore' as const }),
    // Raw output, as the tool printed it: the snapshots keep it byte for byte.
    stripFinalNewline: false,
    timeout: options.timeoutMs,
    forceKillAfterDelay: 5000,
    ...(options.signal ? { cancelSignal: options.signal } : {}),
  });
  const code = (result as { code?: string }).code;
  return {
    argv,
    exitCode: typeof result.exitCode === 'number' ? result.exitCode : null,
    stdout: typeof result.stdout === 'string' ? result.stdout : '',
    stderr: typeof result.stderr === 'string' ? result.stderr : '',
    startedAt: startedAt.toISOString(),
    durationMs: Math.round((performance.now() - started) * 1000) / 1000,
    missing: code === 'ENOENT',
    canceled: result.isCanceled === true,
    timedOut: result.timedOut === true,
  };
}

/** Resolves after `ms`, or rejects at once when the signal aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new Error('aborted'));
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new Error('aborted'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
