// An article that has never been captured, in a draft build: every fact it
// declares shows as "not yet measured", its steps (one per measured line in
// the article's lines) as outputs still to come. A normal build refuses it with one line.
// Pure apart from reading the manifests: the caller has found that the snapshot folder holds no run.
import { join } from 'node:path';
import { readAuthorFile } from '../../authoring/author-file.ts';
import { loadAll } from 'js-yaml';
import { EvidenceError, displayPath } from '../errors.ts';
import type { EnvironmentName, Experiment } from '../../experiment/types.ts';
import type { Fact, FactDef } from '../facts.ts';
import type { Snapshots } from '../load.ts';
import type { RunSnapshot, StepSnapshot } from '../schema.ts';

/** The run id a draft page carries (data-run) while the article has no run. */
export const NOT_YET_MEASURED = 'not-yet-measured';
/** What an unmeasured value shows; the page adds "not yet measured" in its language. */
export const PLACEHOLDER = '—';

/** `dir` is the snapshots folder that was looked for (the article's own, or under SHICE_SNAPSHOT_ROOT). */
export function notYetMeasuredError(slug: string, dir: string): EvidenceError {
  return new EvidenceError(
    `${displayPath(dir)}: not yet measured (no snapshots of ${slug}): capture it with \`npm run capture -- ${slug}\`, or preview it with \`npm run build:draft\``,
  );
}

const EPOCH = '1970-01-01T00:00:00.000Z';
const words = { zh: '尚未实测：这篇文章还没有运行过。', en: 'Not yet measured: this article has not been run.' };

/** What a draft's placeholder run holds: the experiment's nodes, and the Pods and Services its manifests declare. */
export interface DeclaredObjects {
  nodes: string[];
  pods: string[];
  services: string[];
}

/** The objects an experiment declares, read from its manifests under content/articles/<slug>/; none without an experiment. */
export function declaredObjects(slug: string, experiment: Experiment | null): DeclaredObjects {
  const found: DeclaredObjects = { nodes: experiment?.cluster.nodes.map((n) => n.name) ?? [], pods: [], services: [] };
  for (const file of experiment?.manifests ?? []) {
    let docs: unknown[] = [];
    try {
      docs = loadAll(readAuthorFile('.', join('content/articles', slug), file, `content/articles/${slug}/article.ts`, 'experiment.manifests'));
    } catch {
      continue; // the capture names a manifest it cannot read; a draft just has fewer placeholders
    }
    for (const doc of docs as Array<{ kind?: unknown; metadata?: { name?: unknown } } | null>) {
      const name = doc?.metadata?.name;
      if (typeof name !== 'string') continue;
      if (doc?.kind === 'Pod') found.pods.push(name);
      if (doc?.kind === 'Service') found.services.push(name);
    }
  }
  return found;
}

/** Snapshots that hold no measurement: the shape the pages read, with placeholders (and the names `declared` gives). */
export function unmeasuredSnapshots(
  slug: string,
  dir: string,
  steps: readonly string[],
  declared: DeclaredObjects = { nodes: [], pods: [], services: [] },
  /** Where and in which mode the run is still to come, so that the page names it as the runs it stands in for. */
  awaited: { environment?: EnvironmentName; kubeProxyMode?: string } = {},
): Snapshots {
  const run: RunSnapshot = {
    schema: 1,
    slug,
    runId: NOT_YET_MEASURED,
    driver: awaited.environment ?? 'lab',
    environment: { summary: words, standsFor: words, limits: [words] },
    startedAt: EPOCH,
    finishedAt: EPOCH,
    durationMs: 0,
    git: { commit: null, dirty: false },
    host: { os: PLACEHOLDER, arch: PLACEHOLDER, kernel: PLACEHOLDER },
    // Every run records the mode its kube-proxy reports (run.kubeProxyMode); a placeholder's is a placeholder too.
    versions: { 'kube-proxy-mode': PLACEHOLDER },
    cluster: { name: PLACEHOLDER, kubeProxyMode: awaited.kubeProxyMode ?? PLACEHOLDER, podSubnet: '0.0.0.0/0', serviceSubnet: '0.0.0.0/0' },
    nodes: (declared.nodes.length ? declared.nodes : [PLACEHOLDER]).map((name) => ({
      name,
      k8sName: PLACEHOLDER,
      role: 'control-plane' as const,
      internalIP: '0.0.0.0',
      podCIDR: '0.0.0.0/0',
    })),
    pods: declared.pods.map((name) => ({ name, namespace: PLACEHOLDER, node: PLACEHOLDER, ip: '0.0.0.0', image: PLACEHOLDER })),
    services: declared.services.map((name) => ({
      name,
      namespace: PLACEHOLDER,
      type: 'ClusterIP' as const,
      externalTrafficPolicy: 'Cluster' as const,
      clusterIP: '0.0.0.0',
      port: 0,
      targetPort: 0,
      nodePort: 0,
      healthCheckNodePort: null,
    })),
    steps: [...steps],
  };
  const stepSnapshot = (id: string): StepSnapshot => ({
    id,
    kind: 'exec',
    node: PLACEHOLDER,
    title: id,
    command: [PLACEHOLDER],
    argv: [PLACEHOLDER],
    exitCode: 0,
    startedAt: EPOCH,
    durationMs: 0,
    stdout: '',
    stderr: '',
  });
  return {
    dir,
    run,
    steps: new Map(steps.map((id) => [id, stepSnapshot(id)])),
    files: { run: `${dir}/run.yaml`, steps: new Map(steps.map((id) => [id, `${dir}/${id}.yaml`])) },
  };
}

/** Every fact id the article declares, each with the placeholder and the mark. */
export function unmeasuredFacts(defs: readonly FactDef[]): Map<string, Fact> {
  return new Map(defs.map((d) => [d.id, { id: d.id, step: d.step, value: PLACEHOLDER, unmeasured: true as const }]));
}
