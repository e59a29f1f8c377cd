// What the experiment's manifests declare, as far as the kind driver needs it:
// which Pods to wait for, which Pods and Services to read back, which images to
// load. kubectl itself applies the files; this only reads names.
import { loadAll } from 'js-yaml';

export interface ObjectRef {
  name: string;
  namespace: string;
}

export interface DeclaredService extends ObjectRef {
  /** LoadBalancer + externalTrafficPolicy Local: the API will allocate a healthCheckNodePort. */
  healthCheck: boolean;
}

/** A controller whose Pods the API names: the capture waits for its rollout and reads the Pods its selector matches. */
export interface DeclaredWorkload extends ObjectRef {
  kind: 'Deployment' | 'StatefulSet' | 'DaemonSet';
  /** spec.selector.matchLabels */
  selector: Record<string, string>;
}

export const WORKLOAD_KINDS: DeclaredWorkload['kind'][] = ['Deployment', 'StatefulSet', 'DaemonSet'];

export interface DeclaredObjects {
  pods: ObjectRef[];
  workloads: DeclaredWorkload[];
  services: DeclaredService[];
  /** Container images, each once, in the order they first appear. */
  images: string[];
}

interface ManifestDoc {
  kind?: unknown;
  metadata?: { name?: unknown; namespace?: unknown };
  spec?: Record<string, unknown>;
}

function podSpecOf(doc: ManifestDoc): Record<string, unknown> | null {
  if (doc.kind === 'Pod') return doc.spec ?? null;
  const template = doc.spec?.template as { spec?: Record<string, unknown> } | undefined;
  if (template?.spec) return template.spec; // Deployment, DaemonSet, Job, ...
  const jobTemplate = doc.spec?.jobTemplate as { spec?: { template?: { spec?: Record<string, unknown> } } } | undefined;
  return jobTemplate?.spec?.template?.spec ?? null; // CronJob
}

function imagesOf(podSpec: Record<string, unknown>, where: string): string[] {
  const images: string[] = [];
  for (const field of ['initContainers', 'containers'] as const) {
    const containers = podSpec[field];
    if (containers === undefined) continue;
    if (!Array.isArray(containers)) throw new Error(`${where}: field spec.${field}: expected a list`);
    containers.forEach((c: { image?: unknown }, i) => {
      if (typeof c?.image !== 'string' || c.image === '') {
        throw new Error(`${where}: field spec.${field}[${i}].image: expected an image name`);
      }
      images.push(c.image);
    });
  }
  return images;
}

export function declaredObjects(files: { file: string; text: string }[]): DeclaredObjects {
  const result: DeclaredObjects = { pods: [], workloads: [], services: [], images: [] };
  for (const { file, text } of files) {
    let docs: unknown[];
    try {
      docs = loadAll(text);
    } catch (error) {
      throw new Error(`${file}: not valid YAML (${(error as Error).message.split('\n')[0]})`);
    }
    docs.forEach((raw, index) => {
      if (raw === null || raw === undefined) return; // an empty document between `---`
      const doc = raw as ManifestDoc;
      const where = `${file} (document ${index + 1})`;
      if (typeof doc.kind !== 'string') throw new Error(`${where}: field kind: expected a string`);
      const name = doc.metadata?.name;
      if (typeof name !== 'string' || name === '') throw new Error(`${where}: field metadata.name: expected a string`);
      const namespace = typeof doc.metadata?.namespace === 'string' ? doc.metadata.namespace : 'default';
      if (doc.kind === 'Pod') result.pods.push({ name, namespace });
      if ((WORKLOAD_KINDS as string[]).includes(doc.kind)) {
        const matchLabels = (doc.spec?.selector as { matchLabels?: unknown } | undefined)?.matchLabels;
        if (matchLabels === null || typeof matchLabels !== 'object' || Object.keys(matchLabels).length === 0) {
          throw new Error(`${where}: field spec.selector.matchLabels: expected the labels of the ${doc.kind}'s Pods`);
        }
        result.workloads.push({ kind: doc.kind as DeclaredWorkload['kind'], name, namespace, selector: matchLabels as Record<string, string> });
      }
      // Services with a virtual address (ClusterIP, NodePort, LoadBalancer) are read back into the topology; a
      // headless or ExternalName Service is applied like any other object and left to the API server.
      const type = doc.spec?.type ?? 'ClusterIP';
      const virtual = type === 'NodePort' || type === 'LoadBalancer' || (type === 'ClusterIP' && doc.spec?.clusterIP !== 'None');
      if (doc.kind === 'Service' && virtual) {
        const healthCheck = doc.spec?.type === 'LoadBalancer' && doc.spec?.externalTrafficPolicy === 'Local';
        result.services.push({ name, namespace, healthCheck });
      }
      const podSpec = podSpecOf(doc);
      if (podSpec) {
        for (const image of imagesOf(podSpec, where)) if (!result.images.includes(image)) result.images.push(image);
      }
    });
  }
  return result;
}
