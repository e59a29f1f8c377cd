// The existing-cluster driver's public face: its factory and its recovery, as
// the registry (src/capture/session/drivers.ts) holds them. Verify alone runs it.
import { existingEnvironment } from '../../i18n/existing-environment.ts';
import type { CaptureDriver, DriverRun } from '../provider/driver-run.ts';
import { DriverError } from '../provider/node-provider.ts';
import { DEFAULT_AGENT_IMAGE, verifyNamespace } from './agent.ts';
import { existingLeftovers } from './leftovers.ts';
import { parseNodesFlag } from './nodes.ts';
import { ExistingProvider, existingTarget, type ExistingScope } from './provider.ts';

export { AgentsRefused, existingTarget, ExistingProvider, type ExistingScope } from './provider.ts';
export { DEFAULT_AGENT_IMAGE, verifyNamespace, VERIFY_RUN_LABEL } from './agent.ts';
export { chooseNodes, nodesFlag, parseNodesFlag, type ClusterNode } from './nodes.ts';
export { existingLeftovers } from './leftovers.ts';

/** One verify run's driver on a reader's cluster, as verify resolved it (context, nodes, namespace). */
export function createExistingRun(scope: ExistingScope): DriverRun {
  const provider = new ExistingProvider(scope);
  return {
    provider,
    access: { target: existingTarget(scope), cwd: scope.cwd, env: scope.env },
    describe: (identity) =>
      existingEnvironment(identity, { context: scope.context, agentImage: scope.agentImage, agentsRefusedWith: provider.agentsRefusedWith }),
  };
}

export const existingDriver: CaptureDriver = {
  create: (experiment, run) => {
    const { kubeconfig, context, nodes } = run.flags;
    if (typeof kubeconfig !== 'string' || typeof context !== 'string' || typeof nodes !== 'string')
      throw new DriverError('the existing driver needs --kubeconfig, --context and --nodes, as npm run verify resolves them');
    const mapped = parseNodesFlag(nodes, experiment.cluster.nodes);
    if ('problem' in mapped) throw new DriverError(mapped.problem as string);
    const agentImage = typeof run.flags['agent-image'] === 'string' ? run.flags['agent-image'] : DEFAULT_AGENT_IMAGE;
    return createExistingRun({
      experiment,
      runId: run.runId,
      kubeconfig,
      context,
      namespace: verifyNamespace(run.runId),
      nodes: mapped,
      agentImage,
      keep: run.keep,
      cwd: run.root,
      env: process.env,
    });
  },
  leftovers: existingLeftovers,
};
