// What one kind run is built from and what its parts share: the options the
// capture gives it, its time limits, where its state lives, and the one object
// of readings that several parts read (which node image, what that image makes
// the cluster differ in). Everything else a part knows is its own.
import { isAbsolute, join, relative, resolve } from 'node:path';
import type { Experiment } from '../../experiment/types.ts';
import { DriverError } from '../provider/node-provider.ts';
import * as cmd from './commands.ts';
import { checkNodeNaming, KIND_DEFAULT_SETUP, type NodeSetup } from './config.ts';
import { ownEngineRecord, type EngineRecord } from './engine/engine.ts';
import type { LocalImage } from './image/build.ts';
import { markerPath } from './ownership.ts';
import { kindPathDirs } from './prepare.ts';
import type { KubeRelease } from '../../experiment/kubernetes.ts';
import type { Substitution } from './substitutes.ts';
import { KindTools } from './tools.ts';

/** The kind driver's kubeconfig, kind config and ownership marker live here, under the project root (gitignored). */
export const KIND_STATE_DIR = '.shice/kind';

/** The environment variable naming the run in every process the driver starts (and their children). */
export const RUN_MARK = 'SHICE_KIND_RUN';

/** Upper bounds of the provider's own calls, in milliseconds (the platform's are in kubernetes/kube-io.ts). */
export interface KindTimeouts {
  /** version checks, `kind get clusters`, `docker ps`, `docker inspect`, one `kubectl get` */
  quickMs: number;
  /** `kind create cluster`, including a first pull of the node image */
  createMs: number;
  deleteMs: number;
  /** `docker pull` and `kind load docker-image` */
  loadMs: number;
  /** one command the stand-in runs on a node */
  execMs: number;
  /** how long the nodes may take to be given their podCIDRs (the stand-in waits for them) */
  podCidrsMs: number;
  pollMs: number;
}

export const DEFAULT_KIND_TIMEOUTS: KindTimeouts = {
  quickMs: 30_000,
  createMs: 15 * 60_000,
  deleteMs: 3 * 60_000,
  loadMs: 10 * 60_000,
  execMs: 60_000,
  podCidrsMs: 150_000,
  pollMs: 250,
};

export interface KindOptions {
  runId: string;
  articleDir: string;
  keep: boolean;
  reuse: boolean;
  image?: string;
  loadImages: boolean;
  /** The Kubernetes release the run measures: its node image, and kubectl from its build. */
  kubernetes: KubeRelease;
  /** A folder the capture owns (e.g. <repo>/.shice/kind): kubeconfig, kind config, ownership marker. */
  stateDir: string;
  /**
   * The folder tools run in (the project root). The capture's kubeconfig is passed
   * relative to it when it lies inside, so no path of this machine reaches a snapshot.
   */
  cwd?: string;
  /** The environment children start from (tests put fake tools first on PATH); KUBECONFIG is always overridden. */
  env?: NodeJS.ProcessEnv;
  timeouts?: Partial<KindTimeouts>;
  /**
   * This machine as kind:prepare left it: shice's own Docker engine, the tools and the
   * local images it built. Without it the driver uses kind's defaults only (the contract
   * tests, with fake tools).
   */
  host?: {
    /** The project root, where .shice/ lives. */
    root: string;
    /** Whether a registry answers: then kind's official node image and the manifests' own images. */
    registryReachable: () => Promise<boolean>;
  };
}

/** What the kind driver writes into its state folder. */
export function kindStatePaths(stateDir: string, cluster: string): { kubeconfig: string; config: string; marker: string } {
  const dir = resolve(stateDir);
  return {
    kubeconfig: join(dir, 'kubeconfig'),
    config: join(dir, `${cluster}.kind-config.yaml`),
    marker: markerPath(dir, cluster),
  };
}

/** Where a kind run's tools run and its state lives: all a teardown needs, with or without an experiment. */
export interface KindPlace {
  options: KindOptions;
  timeouts: KindTimeouts;
  stateDir: string;
  /** The capture's kubeconfig as argv carries it (relative to cwd when inside it). */
  kubeconfig: string;
  tools: KindTools;
  /** shice's own Docker engine, when the run uses it. */
  engine: EngineRecord | null;
}

export function kindPlace(options: KindOptions): KindPlace {
  const timeouts = { ...DEFAULT_KIND_TIMEOUTS, ...options.timeouts };
  const stateDir = resolve(options.stateDir);
  const cwd = resolve(options.cwd ?? process.cwd());
  const file = join(stateDir, 'kubeconfig');
  const inside = relative(cwd, file);
  const kubeconfig = inside.startsWith('..') || isAbsolute(inside) ? file : inside;
  // Belt and braces: even a call that forgot --kubeconfig could not reach the user's file.
  // The run's mark is inherited by every tool and each of its children: after a kill -9, --clean finds them by it.
  // kubectl's discovery cache in the capture's state folder, not the user's ~/.kube/cache.
  let env: NodeJS.ProcessEnv = {
    ...(options.env ?? process.env),
    KUBECONFIG: kubeconfig,
    KUBECACHEDIR: join(stateDir, 'kube-cache'),
    [RUN_MARK]: options.runId,
  };
  let engine: EngineRecord | null = null;
  if (options.host) {
    // shice's own engine (when kind:prepare started one) and kind:prepare's tools, ahead of the user's.
    engine = ownEngineRecord();
    const path = [...kindPathDirs(options.kubernetes), env.PATH ?? ''].filter(Boolean).join(':');
    env = { ...env, PATH: path, ...(engine ? { DOCKER_HOST: `unix://${engine.socket}` } : {}) };
  }
  return { options, timeouts, stateDir, kubeconfig, tools: new KindTools(env, cwd, timeouts.quickMs), engine };
}

/** Which node image a run uses, and why. */
export interface NodeImageChoice {
  /** null: kind's own default (kindest/node). */
  name: string | null;
  source: 'option' | 'official' | 'local';
  /** What kind:prepare recorded of a local image. */
  local: LocalImage | null;
}

/**
 * The readings several parts of a run share: the node image chosen (by preflight() or up(),
 * which may run on different instances), what it makes the cluster differ in, and the images
 * run in place of the manifests' own. Written only by the image path (image-path.ts).
 */
export interface KindRunState {
  chosen: boolean;
  nodeImage: NodeImageChoice;
  setup: NodeSetup;
  substitutions: Substitution[];
}

/** One run of one experiment: its place, its cluster, and the shared readings. */
export interface KindScope extends KindPlace {
  experiment: Experiment;
  target: cmd.KindTarget;
  state: KindRunState;
}

/** The experiment's cluster, held to kind's node names (steps would land on the wrong container otherwise). */
export function kindScope(experiment: Experiment, options: KindOptions): KindScope {
  try {
    checkNodeNaming(experiment.cluster);
  } catch (error) {
    throw new DriverError((error as Error).message);
  }
  const place = kindPlace(options);
  return {
    ...place,
    experiment,
    target: { cluster: experiment.cluster.name, kubeconfig: place.kubeconfig },
    state: { chosen: false, nodeImage: { name: null, source: 'official', local: null }, setup: KIND_DEFAULT_SETUP, substitutions: [] },
  };
}

/** A node container of the run's cluster: kind names them `<cluster>-<node>`. */
export const containerOf = (scope: Pick<KindScope, 'target'>, node: string): string => cmd.nodeContainer(scope.target.cluster, node);
