// One lab run as the platform sees it (provider/driver-run.ts): the node
// provider with the bootstrap it runs, how kubectl reaches the API server the
// bootstrap starts (kubectl by name, the binaries' folder first on PATH,
// inside the control-plane node where the API server listens), the run's
// description of itself, and what the lab kubelets decided.
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { Experiment } from '../../experiment/types.ts';
import { labEnvironment } from '../../i18n/lab-environment.ts';
import { chooseKubeBinDir, type KubeBinChoice } from '../machine/kube-bin.ts';
import type { KubeRelease } from '../../experiment/kubernetes.ts';
import type { ClusterAccess } from '../kubectl/access.ts';
import type { DriverRun } from '../provider/driver-run.ts';
import { DriverError } from '../provider/node-provider.ts';
import { mergeNodeDecisions } from '../provider/stand-in.ts';
import { LabBootstrap } from './bootstrap.ts';
import { ADMIN_KUBECONFIG } from './components.ts';
import { readImagesReplaced, readNodeDecisions } from './kubelet/decisions.ts';
import { buildLabLayout, controlPlaneOf, LabLayoutError, type LabLayout } from './layout.ts';
import { netnsExec } from './network.ts';
import { LabNodes } from './nodes.ts';
import { LabRunBook } from './run-book.ts';
import { nodeStateFile } from './names.ts';

export interface LabRunSettings {
  runId: string;
  /** The article folder; manifest paths in the experiment are relative to it. */
  articleDir: string;
  /** Leave the lab up after down() and say how to remove it. */
  keep: boolean;
  /** The release the run measures: the project's build of it unless --kube-bin or $SHICE_KUBE_BIN names a folder. */
  kubernetes: KubeRelease;
  /** The folder of Kubernetes binaries (--kube-bin), or null for $SHICE_KUBE_BIN or the project's build. */
  kubeBin: string | null;
  /** The nodes' network; 172.18.0.0/16 (docker's usual pick for kind) unless a test wants other addresses. */
  nodeSubnet?: string;
}

function layoutOf(experiment: Experiment, settings: LabRunSettings): LabLayout {
  try {
    return buildLabLayout(experiment, settings.runId, settings.nodeSubnet);
  } catch (error) {
    throw error instanceof LabLayoutError ? new DriverError(error.message) : error;
  }
}

/** kubectl by name, the binaries' folder first on PATH, inside the control-plane node; a step's argv names no folder of this machine. */
function clusterAccess(layout: LabLayout, folder: string, kubeBin: KubeBinChoice): ClusterAccess {
  return {
    target: { kubeconfig: ADMIN_KUBECONFIG, runner: netnsExec(controlPlaneOf(layout).netns, ['kubectl']) },
    cwd: folder,
    // kubectl's discovery cache in the run's folder (removed with it), not the user's ~/.kube/cache.
    env: { ...process.env, PATH: `${kubeBin.dir}${delimiter}${process.env.PATH ?? ''}`, KUBECACHEDIR: join(folder, 'kube-cache') },
  };
}

/** What the lab kubelets wrote of their nodes (decisions.json): read while the run is up, before down(). */
function kubeletReports(layout: LabLayout, folder: string) {
  const files = layout.nodes.map((node) => nodeStateFile(folder, node.name, 'decisions.json'));
  return {
    decisions: () => {
      try {
        return mergeNodeDecisions(files.map((file) => readNodeDecisions(file)));
      } catch (error) {
        throw new DriverError(`lab: the lab kubelets' decisions: ${(error as Error).message}`);
      }
    },
    /** The images the pods named that the lab ran Debian's nginx in place of; none on a node whose kubelet wrote nothing yet. */
    imagesReplaced: () => {
      try {
        return [...new Set(files.filter((file) => existsSync(file)).flatMap((file) => readImagesReplaced(file)))];
      } catch (error) {
        throw new DriverError(`lab: the lab kubelets' decisions: ${(error as Error).message}`);
      }
    },
  };
}

/** The lab for one experiment (a variant already chosen): what `new LabDriver(...)` was, split by concern. */
export function createLabRun(experiment: Experiment, settings: LabRunSettings): DriverRun {
  const book = new LabRunBook(settings.runId);
  const layout = layoutOf(experiment, settings);
  const kubeBin = chooseKubeBinDir(settings.kubeBin, process.env, settings.kubernetes);
  const access = clusterAccess(layout, book.folder, kubeBin);
  const proxyMode = experiment.cluster.kubeProxyMode;
  const bootstrap = new LabBootstrap({ layout, folder: book.folder, binDir: kubeBin.dir, access, daemons: book.daemons, proxyMode });
  const reports = kubeletReports(layout, book.folder);
  return {
    provider: new LabNodes({ layout, proxyMode, kubeBin, keep: settings.keep, book, bootstrap }),
    access,
    describe: (run) => labEnvironment({ run, binaries: kubeBin.from === 'built' ? 'built' : 'given', imagesReplaced: reports.imagesReplaced() }),
    standIn: async () => reports.decisions(),
  };
}
