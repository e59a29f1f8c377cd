// An article that has never been captured, in a draft build: every fact it
// declares shows as "not yet measured", its steps (one per measured line in
// lines.ts) as outputs still to come. A normal build refuses it with one line.
// Pure: the caller has found that the snapshot folder holds no run.
import { EvidenceError, displayPath } from '../errors.ts';
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

/** Snapshots that hold no measurement: the shape the pages read, with placeholders. */
export function unmeasuredSnapshots(slug: string, dir: string, steps: readonly string[]): Snapshots {
  const run: RunSnapshot = {
    schema: 1,
    slug,
    runId: NOT_YET_MEASURED,
    driver: 'lab',
    environment: { summary: words, standsFor: words, limits: [words] },
    startedAt: EPOCH,
    finishedAt: EPOCH,
    durationMs: 0,
    git: { commit: null, dirty: false },
    host: { os: PLACEHOLDER, arch: PLACEHOLDER, kernel: PLACEHOLDER },
    versions: {},
    cluster: { name: PLACEHOLDER, kubeProxyMode: PLACEHOLDER, podSubnet: '0.0.0.0/0', serviceSubnet: '0.0.0.0/0' },
    nodes: [{ name: PLACEHOLDER, k8sName: PLACEHOLDER, role: 'control-plane', internalIP: '0.0.0.0', podCIDR: '0.0.0.0/0' }],
    pods: [],
    services: [],
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
