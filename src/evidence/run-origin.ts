// Whether a run is what its run.yaml says it is. The driver named there is one
// field anybody can edit; what each driver really leaves in a run is how every
// command entered its node (kind: `docker exec <node container>`, the lab:
// `ip netns exec shice-lab-<run id>.node.<node>`) and the versions only it
// records. A run whose commands or versions contradict its driver would put one
// environment's measurements on another's page. So would a run whose claimed
// release (versions.kubernetes, the folder it goes to) is not the one its own
// records name: the components' versions, the node image, the summary. Pure.
import { DRIVERS } from '../experiment/drivers.ts';
import type { RunSnapshot, StepSnapshot } from './schema.ts';
import { minorOf } from '../experiment/kubernetes.ts';

const startsWith = (argv: readonly string[], prefix: readonly string[]) => prefix.every((word, i) => argv[i] === word);

/** One line per contradiction between the driver run.yaml names and what the run holds; none when it is consistent. */
export function originProblems(
  run: RunSnapshot,
  steps: ReadonlyMap<string, StepSnapshot>,
  files: { run: string; steps: ReadonlyMap<string, string> },
): string[] {
  const origin = DRIVERS[run.driver];
  const problems: string[] = [];
  const named = `run.yaml names driver ${JSON.stringify(run.driver)}`;
  // A run without a step (a verify whose node agents the cluster refused, load.ts) read nothing on a node, its driver's versions included.
  for (const key of run.steps.length > 0 ? origin.versions : []) {
    if (!(key in run.versions)) problems.push(`${files.run}: field "versions.${key}": missing; ${named}, which records it in every run`);
  }
  for (const [other, { versions }] of Object.entries(DRIVERS)) {
    if (other === run.driver) continue;
    for (const key of versions.filter((k) => !(origin.versions as readonly string[]).includes(k) && k in run.versions))
      problems.push(`${files.run}: field "versions.${key}": recorded only by the ${other} driver; ${named}`);
  }
  problems.push(...identityProblems(run, files.run));
  for (const [id, step] of steps) {
    const { prefix, said } = origin.enters(run, step.node);
    if (!startsWith(step.argv, prefix))
      problems.push(
        `${files.steps.get(id) ?? id}: field "argv": expected a command entered by ${said} (${named}, node ${JSON.stringify(step.node)}), got ${JSON.stringify(step.argv.slice(0, prefix.length).join(' '))}`,
      );
  }
  return problems;
}

const RELEASE = String.raw`v\d+\.\d+\.\d+`;

/**
 * Every record of a run that names the Kubernetes release it ran, and how it names it: the
 * components' own answers (lab), the node's kubelet and the node image (kind), the client.
 */
const RELEASE_RECORDS: ReadonlyArray<readonly [key: string, form: RegExp, said: string]> = [
  ...['kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kube-proxy'].map(
    (key) => [key, new RegExp(`^Kubernetes (${RELEASE})$`), `"Kubernetes <release>", as ${key} --version says`] as const,
  ),
  ['kubelet', new RegExp(`^(${RELEASE})$`), 'a release such as v1.37.2'],
  // The client: the same minor (a build's suffix, as v1.32.4-dispatcher, may follow the release).
  ['kubectl', new RegExp(`^(${RELEASE})(?:[-+]\\S*)?$`), 'a release such as v1.37.2'],
  ['node-image', new RegExp(`:(${RELEASE})(?:[-@]|$)`), 'an image tagged with its release (shice/kind-node:<release>-<digest>)'],
  ['node-image-inputs', new RegExp(`\\bkubernetes (${RELEASE})\\b`), '"kubernetes <release>" among the inputs'],
];

/**
 * One line per record of the run that names another Kubernetes release than the one it claims
 * (run.yaml's versions.kubernetes, the API server's answer): a run relabelled as another version
 * is then refused wherever it is read, not put on that version's page. Pure.
 */
export function identityProblems(run: { driver?: unknown; versions?: unknown; environment?: unknown }, file: string): string[] {
  // Read as it comes (a merge reads run.yaml before the schema does): what is not there is the schema's to name.
  const versions = (typeof run.versions === 'object' && run.versions !== null ? run.versions : {}) as Record<string, unknown>;
  const claimed = versions['kubernetes'];
  if (typeof claimed !== 'string') return [];
  const problems: string[] = [];
  const against = `field "versions.kubernetes" claims ${JSON.stringify(claimed)}; expected every record of the run to name the release it claims`;
  for (const [key, form, said] of RELEASE_RECORDS) {
    const value = versions[key];
    // A verify's kubectl is the reader's own, of whatever release they have, not a record of the cluster's.
    if (value === undefined || (key === 'kubectl' && run.driver === 'existing')) continue;
    const found = typeof value === 'string' ? form.exec(value)?.[1] : undefined;
    if (found === undefined) problems.push(`${file}: field "versions.${key}": expected ${said}, got ${JSON.stringify(value)?.slice(0, 80)}`);
    else if (key === 'kubectl' ? minorOf(found) !== minorOf(claimed) : found !== claimed)
      problems.push(`${file}: field "versions.${key}": names Kubernetes ${found}, but ${against}`);
  }
  const summary = (run.environment as { summary?: unknown } | undefined)?.summary as Record<string, unknown> | undefined;
  for (const language of ['en', 'zh'] as const) {
    const text = summary?.[language];
    if (typeof text !== 'string') continue;
    for (const match of text.matchAll(new RegExp(`Kubernetes (${RELEASE})`, 'g')))
      if (match[1] !== claimed) problems.push(`${file}: field "environment.summary.${language}": names Kubernetes ${match[1]}, but ${against}`);
  }
  return problems;
}
