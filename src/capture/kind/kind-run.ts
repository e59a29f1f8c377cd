// One kind run of one experiment, as the platform above the provider sees it:
// the provider, how kubectl reaches the API kind's kubeadm started (the
// capture's own kubeconfig), the run's description in both languages
// (i18n/kind-environment.ts), what the kindnetd stand-in wrote, and the fact
// read from the API's nodes.
import type { Experiment } from '../../experiment/types.ts';
import { kindEnvironment } from '../../i18n/kind-environment.ts';
import type { DriverRun } from '../provider/driver-run.ts';
import { kindApiFacts } from './provenance.ts';
import { KindProvider } from './provider.ts';
import { kindScope, type KindOptions } from './settings.ts';

export interface KindRun extends DriverRun {
  provider: KindProvider;
}

export function createKindRun(experiment: Experiment, options: KindOptions): KindRun {
  const scope = kindScope(experiment, options);
  const provider = new KindProvider(scope);
  const { state } = scope;
  return {
    provider,
    access: { target: scope.target, cwd: scope.tools.cwd, env: scope.tools.env, manifestFile: (manifest) => provider.image.manifestFile(manifest) },
    describe: (run) =>
      kindEnvironment(run, { cniStandIn: state.setup.cniStandIn, localNodeImage: state.nodeImage.source === 'local', substitutions: state.substitutions }),
    standIn: async () => provider.standIn(),
    apiFacts: (nodes) => kindApiFacts(scope, nodes),
  };
}
