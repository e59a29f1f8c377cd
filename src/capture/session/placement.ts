// An experiment placed on a reader's cluster: every object its manifests
// declare moved into the run's own namespace, the nodes its pods are pinned to
// (kind's `<cluster>-<node>`) replaced by the cluster's nodes that play them,
// and optionally the images it declares local stand-ins for. The steps that
// name a pod's namespace follow. Pure: text and data in, text and data out.
import { dump, loadAll } from 'js-yaml';
import type { Experiment, StepDef } from '../../experiment/types.ts';

export interface Placement {
  /** The run's namespace: every namespaced object goes there. */
  namespace: string;
  /** The experiment's node -> the cluster's node name, and its `kubernetes.io/hostname` label where it differs. */
  nodes: Readonly<Record<string, { k8sName: string; hostname: string }>>;
  /** Image -> the image to run instead (the article's declared stand-ins, with --stand-in-images). */
  images: ReadonlyMap<string, string>;
}

const HOSTNAME = 'kubernetes.io/hostname';
const POD_SPEC_PATHS = [['spec'], ['spec', 'template', 'spec'], ['spec', 'jobTemplate', 'spec', 'template', 'spec']];
/** Kinds a namespace does not hold: an experiment that declares one would change the cluster, which verify never does. */
const CLUSTER_WIDE = new Set([
  'Namespace',
  'Node',
  'ClusterRole',
  'ClusterRoleBinding',
  'CustomResourceDefinition',
  'PersistentVolume',
  'StorageClass',
  'PriorityClass',
  'IngressClass',
  'RuntimeClass',
  'ValidatingWebhookConfiguration',
  'MutatingWebhookConfiguration',
]);

type Doc = Record<string, unknown>;
const isObject = (v: unknown): v is Doc => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Every namespace the manifests' namespaced objects name (`default` where they name none). */
export function manifestNamespaces(text: string): string[] {
  return [
    ...new Set(
      (loadAll(text) as unknown[])
        .filter(isObject)
        .map((d) => (isObject(d.metadata) && typeof d.metadata.namespace === 'string' ? d.metadata.namespace : 'default')),
    ),
  ];
}

/**
 * The manifest as the run applies it; a problem (one line, naming the file and object) for what verify
 * must not apply: a cluster-wide object, or a pod pinned to a node the experiment does not have.
 */
export function placeManifest(text: string, file: string, cluster: string, placement: Placement): { text: string } | { problem: string } {
  let docs: unknown[];
  try {
    docs = loadAll(text);
  } catch (error) {
    return { problem: `${file}: not YAML (${(error as Error).message.split('\n')[0]})` };
  }
  const byKindName = new Map(Object.entries(placement.nodes).map(([node, to]) => [`${cluster}-${node}`, to]));
  for (const doc of docs.filter(isObject)) {
    const metadata = isObject(doc.metadata) ? doc.metadata : (doc.metadata = {});
    const what = `${file}: ${String(doc.kind)} ${String(metadata.name)}`;
    if (CLUSTER_WIDE.has(String(doc.kind))) return { problem: `${what}: a cluster-wide object; verify creates objects only in its own namespace` };
    metadata.namespace = placement.namespace;
    for (const path of POD_SPEC_PATHS) {
      let spec: unknown = doc;
      for (const key of path) spec = isObject(spec) ? spec[key] : undefined;
      if (!isObject(spec)) continue;
      if (typeof spec.nodeName === 'string') {
        const to = byKindName.get(spec.nodeName);
        if (!to) return { problem: `${what}: field spec.nodeName: ${spec.nodeName} is none of the experiment's nodes` };
        spec.nodeName = to.k8sName;
      }
      if (isObject(spec.nodeSelector) && typeof spec.nodeSelector[HOSTNAME] === 'string') {
        const to = byKindName.get(spec.nodeSelector[HOSTNAME]);
        if (!to) return { problem: `${what}: field spec.nodeSelector.${HOSTNAME}: ${spec.nodeSelector[HOSTNAME]} is none of the experiment's nodes` };
        spec.nodeSelector[HOSTNAME] = to.hostname;
      }
      for (const list of ['initContainers', 'containers'] as const) {
        const containers = spec[list];
        if (!Array.isArray(containers)) continue;
        for (const c of containers.filter(isObject)) {
          const to = typeof c.image === 'string' ? placement.images.get(c.image) : undefined;
          if (to !== undefined) c.image = to;
        }
      }
    }
  }
  const out = docs.filter((d) => d !== null && d !== undefined).map((d) => dump(d, { lineWidth: -1 }));
  return { text: `# Written by npm run verify: ${file}, placed in namespace ${placement.namespace}.\n${out.join('---\n')}` };
}

/** The experiment with every step that names a pod's namespace naming the run's. */
export function placeExperiment(experiment: Experiment, namespace: string): Experiment {
  const placed = (step: StepDef): StepDef => {
    if (step.kind === 'exec') return step.pod ? { ...step, pod: { ...step.pod, namespace } } : step;
    return { ...step, namespace };
  };
  return { ...experiment, steps: experiment.steps.map(placed) };
}
