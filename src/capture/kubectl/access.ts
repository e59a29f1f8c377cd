// How kubectl reaches a run's API server: known before the nodes are up, so a
// dry run prints the same argvs a run executes.
import type { KubectlTarget } from './commands.ts';

export interface ClusterAccess {
  target: KubectlTarget;
  /** Where kubectl runs, and with what environment (the capture's kubeconfig, never the user's). */
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The file `kubectl apply` reads for a manifest of the experiment (a copy with images substituted); the article's own by default. */
  manifestFile?: (manifest: string) => string;
}
