// What changed between two runs of an experiment: facts (old -> new), steps that
// appeared or disappeared, claims whose status changed. Values that differ on
// every run by design (random ports, pod IPs, timestamps, durations within their
// noise) are marked volatile, so what really changed stands out. Addresses,
// ranges and ports are compared by the role they play in each run's topology
// ("worker's pod gateway"), not by their digits. What describes where the run
// ran (versions, packages, images, the host) is an environment change. Pure.
import type { Fact } from './facts.ts';
import type { ClaimResult } from './claims.ts';
import { stepOutcome, type Outcome } from './outcome.ts';

export interface RunSide {
  runId: string;
  steps: readonly string[];
  facts: ReadonlyMap<string, Fact>;
  claims: readonly ClaimResult[];
  /** The steps that delete a pod and wait until it is gone. */
  deletes?: readonly string[];
  /** Each step's command as it was asked for (not the driver's argv): what tells a client's request from other work. */
  commands?: ReadonlyMap<string, readonly string[]>;
}

export interface FactChange {
  id: string;
  old: string | undefined;
  new: string | undefined;
  /** Why this change is expected on any re-run; undefined for a real change. */
  volatile?: string;
  /** Set when the fact describes where the run ran (a version, a package, an image, the host), not what it did. */
  environment?: true;
  /** The values with their addresses and ports by role, when they hold any and the roles differ. */
  roles?: { old: string; new: string };
  /** Set when only the newer run has the fact because the capture records more than it did for the older one. */
  newlyRecorded?: true;
  /** A time that moved beyond its noise but is no change in behaviour (timeChange): why. */
  timing?: string;
  /** A step's duration whose outcome changed: what the client saw in each run. */
  outcomes?: { old: Outcome; new: Outcome };
}

/**
 * Facts of what run.yaml records that older captures did not record at all (the schema's optional
 * fields added later): present in the newer run only, they are the capture's, not Kubernetes' change.
 */
const RECORDED_LATER = [/^service\.[^.]+\.internalTrafficPolicy$/];

export interface ClaimChange {
  id: string;
  old: ClaimResult['status'] | undefined;
  new: ClaimResult['status'] | undefined;
}

export interface RunDiff {
  oldRun: string;
  newRun: string;
  facts: FactChange[];
  addedSteps: string[];
  missingSteps: string[];
  claims: ClaimChange[];
}

/** Facts whose value is chosen afresh on every run. */
const RANDOM_BY_DESIGN: [RegExp, string][] = [
  [/\.(nodePort|healthCheckNodePort|dropPort)$/, 'port allocated at random'],
  [/^service\..*\.clusterIP$/, 'ClusterIP allocated at random'],
  [/^conntrack-.*\.(sport|dport)$/, 'ephemeral or SNAT port'],
  [/^pod\..*\.ip$/, 'pod IP assigned at run time'],
  [/(^run\.(id|date|startedAt|seconds)$)|\.startedAt$/, 'time of the run'],
];

/** Facts about where a run ran rather than what it did: versions, the host, the images, the driver's description. */
const ENVIRONMENT = /^(run\.)?version\.|^run\.host$|^pod\.[^.]+\.image$|^run\.environment\./;

/** Whether a fact describes where the run ran: one of ENVIRONMENT, or a value a stand-in read from the machine (its memory, an MTU). */
export function isEnvironmentFact(id: string, ...sides: RunSide[]): boolean {
  if (ENVIRONMENT.test(id)) return true;
  const row = /^run\.standIn\.(\d+)\./.exec(id)?.[1];
  return row !== undefined && sides.some((side) => side.facts.get(`run.standIn.${row}.source`)?.value === 'read');
}

/**
 * How long kube-proxy takes to notice a deleted endpoint varies by up to its minSyncPeriod
 * (1 s, kind's and the lab's) and the settle poll's step (100 ms) at each end.
 */
export const SETTLE_NOISE_SECONDS = 1.2;
const SETTLE_POLL_SECONDS = 0.1;
/** A pod delete returns once the kubelet has seen its containers end, which it notices on its 1 s relist (PLEG). */
const DELETE_NOISE_SECONDS = 1.2;

/** A duration: `.seconds`, `.settleSeconds`, `...Ms`. */
export const DURATION = /(?:seconds|Seconds)$|(?:^|[.a-z])Ms$/;
/** What a run measures of time without being a duration: how many polls a wait took. */
const TIME_COUNT = /\.settlePolls$/;

/** A duration changed by less than this is noise: 0.5 s, or a fifth of the old value. */
export function withinNoise(oldSeconds: number, newSeconds: number): boolean {
  return Math.abs(newSeconds - oldSeconds) <= Math.max(0.5, oldSeconds * 0.2);
}

function simpleVolatility(id: string, oldValue: string, newValue: string, deletes: readonly string[]): string | undefined {
  for (const [pattern, reason] of RANDOM_BY_DESIGN) if (pattern.test(id)) return reason;
  const delta = Math.abs(Number(newValue) - Number(oldValue));
  const step = /^(.+)\.seconds$/.exec(id)?.[1];
  if (step !== undefined && deletes.includes(step) && delta <= DELETE_NOISE_SECONDS) return "a pod delete's time, within its noise (the kubelet's 1 s relist)";
  if (/\.settle(?:After)?Seconds$/.test(id) && delta <= SETTLE_NOISE_SECONDS)
    return "kube-proxy's time to notice, within its noise (its 1 s minSyncPeriod and the poll)";
  if (/\.settlePolls$/.test(id) && delta * SETTLE_POLL_SECONDS <= SETTLE_NOISE_SECONDS)
    return "kube-proxy's time to notice, within its noise (its 1 s minSyncPeriod and the poll)";
  const scale = /Ms$/.test(id) ? 1000 : 1;
  if (DURATION.test(id) && withinNoise(Number(oldValue) / scale, Number(newValue) / scale)) return 'duration within its noise';
  // "Connection timed out after 3001 milliseconds" vs "... 3004 ...": the same message, another timing.
  if (/\.error$/.test(id) && oldValue.replace(/\d+/g, '#') === newValue.replace(/\d+/g, '#')) return 'timing inside a message';
  return undefined;
}

/** The first host address of an IPv4 range (10.244.2.0/24 -> 10.244.2.1): the pod gateway the CNI puts on the node. */
function firstHost(cidr: string): string | undefined {
  const m = /^(\d+)\.(\d+)\.(\d+)\.(\d+)\/(\d+)$/.exec(cidr);
  if (!m || Number(m[5]) > 30) return undefined;
  return `${m[1]}.${m[2]}.${m[3]}.${Number(m[4]) + 1}`;
}

/**
 * A Pod name a Deployment's ReplicaSet generated: `<deployment>-<pod-template-hash>-<5 random>`,
 * both parts in the alphabet Kubernetes draws them from (k8s.io/apimachinery/pkg/util/rand):
 * `web-68b8cc69d6-fkstc`. Such a pod plays the role of its workload's pod, not its own name's.
 */
const GENERATED_POD_NAME = /^([a-z0-9](?:[-a-z0-9]*[a-z0-9])?)-[bcdfghjklmnpqrstvwxz2456789]{1,10}-[bcdfghjklmnpqrstvwxz2456789]{5}$/;

export function isGeneratedPodName(name: string): boolean {
  return GENERATED_POD_NAME.test(name);
}

/**
 * What each address, range and port of a run stands for in its topology: node addresses and pod
 * ranges, the pod gateway of each range, pod addresses, ClusterIPs and allocated ports, read from
 * the run's facts. A value with several roles keeps the first by id. Longest values first.
 */
export function roleTokens(side: RunSide): Array<[value: string, role: string]> {
  const roles = new Map<string, string>();
  const add = (value: string | undefined, role: string) => {
    if (value !== undefined && value.length >= 2 && value !== 'none' && !roles.has(value)) roles.set(value, role);
  };
  // A gateway an article measured comes first; a range's first host stands for it only where none was.
  const derived: Array<[string | undefined, string]> = [];
  for (const id of [...side.facts.keys()].sort()) {
    const value = side.facts.get(id)!.value;
    const node = /^node\.([^.]+)\.(ip|podCIDR|podGateway)$/.exec(id);
    if (node) {
      add(value, id);
      if (node[2] === 'podCIDR' && !side.facts.has(`node.${node[1]}.podGateway`)) derived.push([firstHost(value), `node.${node[1]}.podGateway`]);
      continue;
    }
    const pod = /^pod\.([^.]+)\.ip$/.exec(id);
    const workload = pod && GENERATED_POD_NAME.exec(pod[1]!)?.[1];
    if (pod) add(value, workload ? `pod.${workload}-*.ip` : id);
    if (/^service\.[^.]+\.(clusterIP|nodePort|healthCheckNodePort)$/.test(id)) add(value, id);
  }
  for (const [value, role] of derived) add(value, role);
  return [...roles].sort((a, b) => b[0].length - a[0].length || a[0].localeCompare(b[0]));
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A value with every address, range and port replaced by its role (‹node.worker.podGateway›); a token never matches inside a longer number. */
export function byRole(value: string, tokens: ReadonlyArray<readonly [string, string]>): string {
  let out = value;
  for (const [token, role] of tokens) out = out.replace(new RegExp(`(?<![\\d.])${escape(token)}(?![\\d]|\\.\\d)`, 'g'), `\u2039${role}\u203a`);
  return out;
}

/** The values of a run's random-by-design facts, longest first, to mask them inside composite values. */
function volatileTokens(side: RunSide): string[] {
  const tokens = new Set<string>([side.runId]);
  for (const fact of side.facts.values()) {
    if (RANDOM_BY_DESIGN.some(([pattern]) => pattern.test(fact.id)) && fact.value.length >= 2) tokens.add(fact.value);
  }
  return [...tokens].sort((a, b) => b.length - a.length);
}

/** Names a run's software chooses afresh that no fact records: a pod sandbox's network namespace, as the CNI plugins name it (`cni-<uuid>`). */
const RANDOM_NAMES = /\/var\/run\/netns\/cni-[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}/g;

function mask(value: string, tokens: readonly string[]): string {
  let masked = value.replace(RANDOM_NAMES, '\u2039v\u203a');
  for (const token of tokens) masked = masked.split(token).join('\u2039v\u203a');
  return masked;
}

/** The roles a value holds, for the report: "node.worker.podGateway". */
const rolesIn = (value: string) => [...value.matchAll(/\u2039([^\u203a]+)\u203a/g)].map((m) => m[1]!);

/**
 * A client's wait is a bracket (`.settleAfterSeconds` to `.settleSeconds`: the change came between
 * the last probe that did not show it and the first that did); one probe can take as long as the
 * client's own time limit. Two runs whose brackets overlap, or lie within kube-proxy's 1 s
 * minSyncPeriod and the poll of each other, measured the same behaviour.
 */
function clientWaitOverlap(id: string, old: RunSide, next: RunSide): string | undefined {
  const step = /^(.+)\.settle(?:After)?Seconds$/.exec(id)?.[1];
  if (step === undefined) return undefined;
  const bracket = (side: RunSide) => {
    const from = Number(side.facts.get(`${step}.settleAfterSeconds`)?.value);
    const to = Number(side.facts.get(`${step}.settleSeconds`)?.value);
    return Number.isFinite(from) && Number.isFinite(to) ? ([from, to] as const) : undefined;
  };
  const [a, b] = [bracket(old), bracket(next)];
  // How far apart the two brackets are: none when they overlap.
  const gap = a === undefined || b === undefined ? Infinity : Math.max(a[0], b[0]) - Math.min(a[1], b[1]);
  if (gap > SETTLE_NOISE_SECONDS) return undefined;
  return `a client's wait, within both runs' resolution and kube-proxy's 1 s minSyncPeriod (the change came between ${a![0]} and ${a![1]} s, and between ${b![0]} and ${b![1]} s)`;
}

/** The outcome of a step in a run, from its exit code, duration and command; undefined when the run lacks them. */
function outcomeOf(side: RunSide, step: string): Outcome | undefined {
  const rc = Number(side.facts.get(`${step}.rc`)?.value);
  const seconds = Number(side.facts.get(`${step}.seconds`)?.value);
  if (!Number.isInteger(rc) || !Number.isFinite(seconds)) return undefined;
  return stepOutcome(rc, seconds, side.commands?.get(step));
}

/** What a time that is no step's duration is judged by: the claims that read it, nothing else. */
export const TIME_JUDGED_BY_CLAIMS = 'a time, judged by the claims that read it';

/**
 * How a time changed beyond its noise. A step's duration is timing when its client saw the same
 * outcome in both runs, else both outcomes are a change in behaviour; any other time (kube-proxy's
 * to notice a delete, a client's wait) is timing: where an article's point is a time, its claim
 * reads it and says so.
 */
function timeChange(id: string, old: RunSide, next: RunSide): Pick<FactChange, 'timing' | 'outcomes'> {
  const step = /^(.+)\.seconds$/.exec(id)?.[1];
  if (step !== undefined && old.steps.includes(step) && next.steps.includes(step)) {
    const [a, b] = [outcomeOf(old, step), outcomeOf(next, step)];
    if (a !== undefined && b !== undefined) return a === b ? { timing: `${a} in both runs` } : { outcomes: { old: a, new: b } };
  }
  return DURATION.test(id) || TIME_COUNT.test(id) ? { timing: TIME_JUDGED_BY_CLAIMS } : {};
}

export function diffRuns(old: RunSide, next: RunSide): RunDiff {
  const oldTokens = volatileTokens(old);
  const newTokens = volatileTokens(next);
  const oldRoles = roleTokens(old);
  const newRoles = roleTokens(next);
  const facts: FactChange[] = [];
  const ids = [...new Set([...old.facts.keys(), ...next.facts.keys()])].sort();
  for (const id of ids) {
    const a = old.facts.get(id)?.value;
    const b = next.facts.get(id)?.value;
    const [ra, rb] = a !== undefined && b !== undefined ? [byRole(a, oldRoles), byRole(b, newRoles)] : [a, b];
    // The same digits may play another role: worker's gateway in one run, worker2's in the other.
    if (a === b && ra === rb) continue;
    const roles = ra !== undefined && rb !== undefined && ra !== rb && (ra !== a || rb !== b) ? { roles: { old: ra, new: rb } } : {};
    let volatile: string | undefined;
    if (a !== undefined && b !== undefined && ra !== undefined && rb !== undefined && a !== b) {
      volatile = clientWaitOverlap(id, old, next) ?? simpleVolatility(id, a, b, [...(old.deletes ?? []), ...(next.deletes ?? [])]);
      // The same role in each run's topology: the client the backend saw is worker's pod gateway in both.
      if (!volatile && ra === rb && ra !== a) volatile = `the same role in both runs (${[...new Set(rolesIn(ra))].join(', ')})`;
      // A composite value (a rule, an argv, a conntrack line) that differs only in random-by-design parts, roles kept.
      if (!volatile && mask(ra, oldTokens) === mask(rb, newTokens)) volatile = 'only its random-by-design parts changed';
    }
    // What is left of a version, an image or what a stand-in read from the machine is the environment's change.
    if (a === undefined && b !== undefined && RECORDED_LATER.some((p) => p.test(id))) facts.push({ id, old: a, new: b, newlyRecorded: true });
    else if (!volatile && isEnvironmentFact(id, old, next)) facts.push({ id, old: a, new: b, environment: true });
    else facts.push({ id, old: a, new: b, ...(volatile ? { volatile } : { ...roles, ...timeChange(id, old, next) }) });
  }
  const claimIds = [...new Set([...old.claims.map((c) => c.id), ...next.claims.map((c) => c.id)])];
  const claims = claimIds
    .map((id) => ({ id, old: old.claims.find((c) => c.id === id)?.status, new: next.claims.find((c) => c.id === id)?.status }))
    .filter((c) => c.old !== c.new);
  return {
    oldRun: old.runId,
    newRun: next.runId,
    facts,
    addedSteps: next.steps.filter((s) => !old.steps.includes(s)),
    missingSteps: old.steps.filter((s) => !next.steps.includes(s)),
    claims,
  };
}
