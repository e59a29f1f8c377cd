// How an article says what a fact reads: one line naming the step and what to
// read from its output. An article's facts are an object of these, keyed by
// fact id (src/authoring/article.ts); a family (a curl's timeout and client, a
// health check's status and body) is a function returning several, its ids
// typed from the step's. `fromStep` and `fromRun` take any function for what
// does not fit. Every reader throws an ExtractError that says what it looked
// for and what it found; the loader adds the snapshot file and the fact id.
import type { FactDef, FactInput, FactValue } from './facts.ts';
import type { RunSnapshot, StepSnapshot } from './schema.ts';
import { DECLARED_STEP, RUN_STEP } from './facts.ts';
import { join } from 'node:path';
import { AuthorFileError, readAuthorFile } from '../authoring/author-file.ts';
import { load } from 'js-yaml';
import { manifestValue } from './extract/manifest.ts';
import { fieldAt } from './extract/field.ts';
import { ExtractError } from './errors.ts';
import { clientAddress, curlFailure, maxTime } from './extract/curl.ts';
import { durationSeconds } from './extract/duration.ts';
import { headerValue, jsonField, parseHttpResponse } from './extract/http.ts';
import { findRule, findRules, optionValue, parseIptablesSave, type RuleQuery } from './extract/iptables-save.ts';
import { flowEntriesShown, parseConntrackList, type ConntrackEntry } from './extract/conntrack.ts';
import { findChain, findChainRule, findPortVerdict, findSet, findTable, parseNftRuleset } from './extract/nft.ts';
import { parseIpAddressJson, podGatewayOnNode } from './extract/ip-address.ts';
import { node, nodeIP, serviceKey } from './extract/run.ts';
import { binomialExpectation, countWhere, parseAnswers, share, type Answer } from './extract/answers.ts';
import { recentTotals, rememberedAffinitySet, rememberedRecentCheck } from './extract/affinity.ts';

/** A fact as an article declares it: everything but its id, which is its key. */
export type FactSpec = Omit<FactDef, 'id'>;
/** An article's facts, by id. */
export type FactSpecs<Id extends string = string> = { readonly [K in Id]: FactSpec };

const asValue = (v: string | FactValue): FactValue => (typeof v === 'string' ? { value: v } : v);

function stepOf(input: FactInput): StepSnapshot {
  if (!input.step) throw new ExtractError('this fact needs a step snapshot');
  return input.step;
}

/** Anything read from one step's snapshot, by a function of it (and run.yaml). */
export function fromStep(step: string, derive: (step: StepSnapshot, run: RunSnapshot) => string | FactValue): FactSpec {
  return { step, derive: (input) => asValue(derive(stepOf(input), input.run)) };
}

/** Anything read from run.yaml, by a function of it. */
export function fromRun(derive: (run: RunSnapshot) => string | FactValue): FactSpec {
  return { step: RUN_STEP, derive: (input) => asValue(derive(input.run)) };
}

/** The same fact, skipped (not failed) by runs that do not have the value: say why. */
export function optional(spec: FactSpec, reason: string): FactSpec {
  return { ...spec, optional: { reason } };
}

/**
 * A value the experiment declares in a manifest (a replica count, a port): it binds as
 * declared, not measured. `file` is relative to the article's folder; `object` is `Kind/name`.
 */
export function declared(file: string, object: string, path: string): FactSpec {
  return {
    step: DECLARED_STEP,
    declared: { file },
    derive: ({ run }) => {
      let text: string;
      try {
        // Through the one reader of author files: a path out of the checkout is refused, not read.
        text = readAuthorFile('.', join('content/articles', run.slug), file, `content/articles/${run.slug}/article.ts`, 'declared');
      } catch (error) {
        if (error instanceof AuthorFileError) throw new ExtractError(error.message);
        throw new ExtractError(`cannot read the manifest ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
      }
      return { value: manifestValue(text, object, path) };
    },
  };
}

/**
 * A value the article's own definition sets (a parameter of a model its claims check, a bound): it binds
 * as declared by article.ts, marked so on the page, never as something a run measured.
 */
export function fromDefinition(value: string | number): FactSpec {
  return { step: DECLARED_STEP, declared: { file: 'article.ts' }, derive: () => ({ value: String(value) }) };
}

/** Group 1 of `pattern` (the whole match without a group) on the step's stdout. */
export function stdout(step: string, pattern: RegExp): FactSpec {
  return fromStep(step, (s) => {
    const match = pattern.exec(s.stdout);
    if (!match) throw new ExtractError(`looked for ${pattern} on stdout, found ${s.stdout.trim() ? JSON.stringify(s.stdout.trim().slice(0, 120)) : 'nothing'}`);
    return match[1] ?? match[0];
  });
}

/** A field, by dotted path (list items by index), of the JSON or YAML a step printed (`kubectl get -o json|yaml`). */
export function printed(step: string, path: string): FactSpec {
  return fromStep(step, (s) => {
    let data: unknown;
    try {
      data = load(s.stdout, { maxAliases: 0 });
    } catch (error) {
      throw new ExtractError(`expected JSON or YAML on stdout (${(error as Error).message.split('\n')[0]})`);
    }
    const current = fieldAt(data, path, 'what the step printed');
    if (typeof current !== 'string' && typeof current !== 'number' && typeof current !== 'boolean')
      throw new ExtractError(`"${path}": expected a number, a string or a boolean, got ${current === null ? 'null' : typeof current}`);
    return String(current);
  });
}

/** What curl ran with and reported: its --max-time, the backend's `client=` line, or curl's error message. */
export const curl = {
  timeout: (step: string) => fromStep(step, (s) => maxTime(s.argv)),
  client: (step: string) => fromStep(step, (s) => clientAddress(s.stdout)),
  error: (step: string) => fromStep(step, (s) => curlFailure(s.stderr).message),
};

/** An HTTP answer printed by `curl --include`: status, reason phrase, a header, or a field of its JSON body. */
export const http = {
  status: (step: string) => fromStep(step, (s) => String(parseHttpResponse(s.stdout).status)),
  reason: (step: string) => fromStep(step, (s) => parseHttpResponse(s.stdout).reason),
  header: (step: string, name: string) =>
    fromStep(step, (s) => {
      const value = headerValue(parseHttpResponse(s.stdout), name);
      if (value === undefined) throw new ExtractError(`the answer has no header ${name}`);
      return value;
    }),
  json: (step: string, path: string) =>
    fromStep(step, (s) => {
      const value = jsonField(parseHttpResponse(s.stdout), path);
      if (typeof value !== 'string' && typeof value !== 'number')
        throw new ExtractError(`expected ${path} to be a number or a string, got ${JSON.stringify(value)}`);
      return String(value);
    }),
};

/** `iptables-save`: the one rule `query` finds (by table, chain, target, comment, --dport), as printed, or one of its options. */
export const iptables = {
  rule: (step: string, query: (run: RunSnapshot) => RuleQuery) => fromStep(step, (s, run) => findRule(parseIptablesSave(s.stdout), query(run)).line),
  option: (step: string, query: (run: RunSnapshot) => RuleQuery, option: string) =>
    fromStep(step, (s, run) => {
      const found = findRule(parseIptablesSave(s.stdout), query(run));
      const value = optionValue(found.args, option);
      if (value === undefined) throw new ExtractError(`the rule has no ${option}: ${found.line}`);
      return value;
    }),
  /**
   * How a Service's chain picks an endpoint, in the nat table: KUBE-SVC-… (the cluster-wide one) or KUBE-SVL-…
   * (a node's own, under Local). `endpoints`: how many KUBE-SEP-… rules it jumps to; `probabilities`: each
   * rule's `-m statistic --mode random --probability` in order, comma-separated (the last rule has none).
   */
  picks: (step: string, service: string, chain: 'KUBE-SVC-' | 'KUBE-SVL-', field: 'endpoints' | 'probabilities') =>
    fromStep(step, (s, run) => {
      const key = serviceKey(run, service);
      const rules = findRules(parseIptablesSave(s.stdout), { table: 'nat' }).filter(
        (r) => r.chain.startsWith(chain) && r.target?.startsWith('KUBE-SEP-') && optionValue(r.args, '--comment')?.startsWith(`${key} -> `),
      );
      if (rules.length === 0) throw new ExtractError(`looked for ${chain}… rules of ${key} jumping to KUBE-SEP-… in the nat table, found none`);
      if (new Set(rules.map((r) => r.chain)).size !== 1)
        throw new ExtractError(`${key}'s ${chain}… rules are in ${new Set(rules.map((r) => r.chain)).size} chains, expected one`);
      if (field === 'endpoints') return String(rules.length);
      const given = rules.map((r) => optionValue(r.args, '--probability')).filter((p): p is string => p !== undefined);
      if (given.length === 0) throw new ExtractError(`${key}'s ${chain}… chain picks its one endpoint without a probability`);
      return given.join(', ');
    }),
  /** The one rule jumping to `targetPrefix…` in the chain of the rule `sibling` finds: a chain named by a hash, found by a comment. */
  inChainOf: (step: string, query: (run: RunSnapshot) => RuleQuery, targetPrefix: string) =>
    fromStep(step, (s, run) => {
      const save = parseIptablesSave(s.stdout);
      const sibling = query(run);
      const { chain } = findRule(save, sibling);
      const found = findRules(save, { table: sibling.table, chain }).filter((r) => r.target?.startsWith(targetPrefix));
      if (found.length !== 1)
        throw new ExtractError(
          `expected one rule jumping to ${targetPrefix}… in chain ${chain}, found ${found.length}${found.length ? `: ${found.map((r) => r.line).join('; ')}` : ''}`,
        );
      return found[0]!.line;
    }),
};

/** A verdict map's element by its key: a NodePort map's `protocol . port`, a Service map's `address . protocol . port`. */
type VerdictQuery = (run: RunSnapshot) => { map: string; protocol: string; port: string; address?: string };

/** kube-proxy's IPv4 table, out of `nft list ruleset` (every table of the node at one moment) or `nft list table ip kube-proxy`. */
const kubeProxyTable = (s: StepSnapshot) => findTable(parseNftRuleset(s.stdout), 'ip', 'kube-proxy');

/** `nft list ruleset`, kube-proxy's table in it: a chain's rule that mentions `text`, a base chain's hook, a set's elements, a verdict map's element for a port. */
export const nft = {
  rule: (step: string, chain: string, text: string) => fromStep(step, (s) => findChainRule(kubeProxyTable(s), chain, text)),
  hook: (step: string, chain: string) =>
    fromStep(step, (s) => {
      const hook = findChain(kubeProxyTable(s), chain).hook;
      if (hook === undefined) throw new ExtractError(`chain "${chain}" is not a base chain (no hook)`);
      return hook;
    }),
  set: (step: string, set: string) => fromStep(step, (s) => findSet(kubeProxyTable(s), set).elements.join(', ')),
  /**
   * The one rule of kube-proxy's table, in any chain, that `match` accepts: for a rule whose chain differs by
   * release (a mark kept per Service in one, for every ClusterIP at once in the next). `what` names it in the error.
   */
  ruleWhere: (step: string, what: string, match: (rule: string, chain: string, run: RunSnapshot) => boolean) =>
    fromStep(step, (s, run) => {
      const found = kubeProxyTable(s).chains.flatMap((c) => c.rules.filter((r) => match(r, c.name, run)));
      if (found.length !== 1)
        throw new ExtractError(`looked for one rule ${what} in kube-proxy's table, found ${found.length}${found.length ? `: ${found.join('; ')}` : ''}`);
      return found[0]!;
    }),
  verdict: (step: string, query: VerdictQuery, field: 'element' | 'port' | 'verdict' | 'comment') =>
    fromStep(step, (s, run) => {
      const q = query(run);
      const found = findPortVerdict(findSet(kubeProxyTable(s), q.map), q.protocol, q.port, q.address);
      const value = field === 'element' ? found.text : found[field];
      if (value === undefined) throw new ExtractError(`the element has no ${field}: ${found.text}`);
      return value;
    }),
};

/**
 * Where kube-proxy remembers the client of a ClientIP Service (named as the run named it: `s-sticky`), from `iptables-save -c`:
 * the `--rcheck` rule that matched (`.rule`), the new connections it matched (`.packets`), its endpoint's
 * address (`.endpoint`) and how long a client stays remembered (`.seconds`).
 */
export function recentCheckFacts<P extends string>(prefix: P, step: string, service: string): FactSpecs<`${P}.${'rule' | 'packets' | 'endpoint' | 'seconds'}`> {
  const read = (field: 'line' | 'packets' | 'endpoint' | 'seconds') =>
    fromStep(step, (s, run) => String(rememberedRecentCheck(parseIptablesSave(s.stdout), serviceKey(run, service))[field]));
  return factsFrom<`${P}.${'rule' | 'packets' | 'endpoint' | 'seconds'}`>([
    [`${prefix}.rule`, { ...read('line'), volatile: { reason: 'its counters and chain names differ on every run' } }],
    [`${prefix}.packets`, read('packets')],
    [`${prefix}.endpoint`, read('endpoint')],
    [`${prefix}.seconds`, read('seconds')],
  ]);
}

/**
 * A ClientIP Service's new connections, from `iptables-save -c`: `.checked`, those its `--rcheck` rules sent
 * on (the client was remembered), and `.recorded`, all of them (its endpoints' `--set` rules).
 */
export function recentTotalFacts<P extends string>(prefix: P, step: string, service: string): FactSpecs<`${P}.${'checked' | 'recorded'}`> {
  const read = (field: 'checked' | 'recorded') =>
    fromStep(step, (s, run) => String(recentTotals(parseIptablesSave(s.stdout), serviceKey(run, service))[field]));
  return factsFrom<`${P}.${'checked' | 'recorded'}`>([
    [`${prefix}.checked`, read('checked')],
    [`${prefix}.recorded`, read('recorded')],
  ]);
}

/**
 * The same from `nft list ruleset`: the affinity set holding the client (`.set`), the client it holds
 * (`.client`), its endpoint's address (`.endpoint`) and the set's timeout (`.timeout`, as printed: `45s`).
 */
export function affinitySetFacts<P extends string>(prefix: P, step: string, service: string): FactSpecs<`${P}.${'set' | 'client' | 'endpoint' | 'timeout'}`> {
  const read = (derive: (set: ReturnType<typeof rememberedAffinitySet>) => string) =>
    fromStep(step, (s, run) => derive(rememberedAffinitySet(kubeProxyTable(s), serviceKey(run, service))));
  return factsFrom<`${P}.${'set' | 'client' | 'endpoint' | 'timeout'}`>([
    [`${prefix}.set`, { ...read((set) => set.name), volatile: { reason: 'its name holds the endpoint, which the run picks afresh' } }],
    [`${prefix}.client`, read((set) => set.clients.join(', '))],
    [`${prefix}.endpoint`, read((set) => set.endpoint)],
    [`${prefix}.timeout`, read((set) => set.timeout)],
  ]);
}

/** Entries of `conntrack -L`; the count is checked against conntrack's own "N flow entries" line. */
export function conntrackEntries(s: StepSnapshot): ConntrackEntry[] {
  const entries = parseConntrackList(s.stdout);
  const shown = flowEntriesShown(s.stderr);
  if (shown !== entries.length) throw new ExtractError(`stderr says ${shown} flow entries were shown, but stdout has ${entries.length}`);
  return entries;
}

type Direction = 'original' | 'reply';
type TupleKey = 'src' | 'dst' | 'sport' | 'dport';
export type ConntrackField = 'count' | 'first.line' | 'first.state' | `first.${Direction}.${TupleKey}`;

/** `conntrack -L`: how many entries, or a field of the first: its line, state, or a direction's src/dst/sport/dport. */
export function conntrack(step: string, field: ConntrackField): FactSpec {
  return fromStep(step, (s) => {
    const entries = conntrackEntries(s);
    if (field === 'count') return String(entries.length);
    const first = entries[0];
    if (!first) throw new ExtractError('looked for a first conntrack entry, but conntrack showed none');
    if (field === 'first.line') return first.line;
    if (field === 'first.state') {
      if (!first.state) throw new ExtractError(`the first entry has no state: ${first.line}`);
      return first.state;
    }
    const [, direction, key] = field.split('.') as [string, Direction, TupleKey];
    const value = first[direction][key];
    if (value === undefined) throw new ExtractError(`the first entry's ${direction} direction has no ${key}=: ${first.line}`);
    return value;
  });
}

/** The pod gateway as `nodeName` itself holds it, from `ip -j -4 address show` there: the address in its podCIDR on its pods' veths. */
export function podGateway(step: string, nodeName: string): FactSpec {
  return fromStep(step, (s, run) => podGatewayOnNode(parseIpAddressJson(s.stdout), node(run, nodeName).podCIDR).address);
}

/**
 * A delete-pod or recreate-pod step's measured wait until it took effect (kube-proxy's health check said 0
 * local endpoints, or the client's answer changed): seconds after the delete or after Ready, or polls.
 */
export function settle(step: string, field: 'seconds' | 'polls' | 'afterSeconds'): FactSpec {
  return fromStep(step, (s) => {
    if (s.settle === undefined) throw new ExtractError(`step ${step} has no settle record (a delete-pod or recreate-pod step records one)`);
    if (field === 'polls') return String(s.settle.polls);
    if (field === 'seconds') return durationSeconds((s.settle.afterDeleteMs ?? s.settle.afterDeleteStartMs ?? s.settle.afterReadyMs)!);
    if (s.settle.lastUnchangedMs === undefined)
      throw new ExtractError(`step ${step}: its settle record has no lastUnchangedMs (only a client's wait records one)`);
    return durationSeconds(s.settle.lastUnchangedMs);
  });
}

// Families: what one kind of step usually gives, with ids typed from the step's.

/** A curl step: `<step>.timeout` and, as it ended, `.client` (answered) or `.error` (failed). */
export function curlFacts<S extends string>(step: S, expect: 'answered'): FactSpecs<`${S}.timeout` | `${S}.client`>;
export function curlFacts<S extends string>(step: S, expect: 'failed'): FactSpecs<`${S}.timeout` | `${S}.error`>;
export function curlFacts(step: string, expect: 'answered' | 'failed'): FactSpecs {
  return {
    [`${step}.timeout`]: curl.timeout(step),
    [`${step}.${expect === 'answered' ? 'client' : 'error'}`]: curl[expect === 'answered' ? 'client' : 'error'](step),
  };
}

/** A kube-proxy health check read with `curl --include`: `<step>.status`, `.reason` and the body's `.localEndpoints`. */
export function healthCheckFacts<S extends string>(step: S): FactSpecs<`${S}.${'status' | 'reason' | 'localEndpoints'}`> {
  return {
    [`${step}.status`]: http.status(step),
    [`${step}.reason`]: http.reason(step),
    [`${step}.localEndpoints`]: http.json(step, 'localEndpoints'),
  } as FactSpecs<`${S}.${'status' | 'reason' | 'localEndpoints'}`>;
}

const CONNTRACK_FIELDS: readonly ConntrackField[] = [
  'count',
  'first.line',
  'first.state',
  ...(['original', 'reply'] as const).flatMap((d) => (['src', 'dst', 'sport', 'dport'] as const).map((k) => `first.${d}.${k}` as const)),
];

/**
 * `conntrack -L`: `<step>.count` and every field of the first entry. The whole line is volatile:
 * it holds the entry's countdown to expiry in seconds, which depends on when conntrack was read
 * (119 on one run, 118 on the next); every other part of it is a fact of its own.
 */
export function conntrackFacts<S extends string>(step: S): FactSpecs<`${S}.${ConntrackField}`> {
  const countdown = { reason: "the line holds the entry's countdown to expiry, which depends on when conntrack was read" };
  return Object.fromEntries(
    CONNTRACK_FIELDS.map((f) => [`${step}.${f}`, f === 'first.line' ? { ...conntrack(step, f), volatile: countdown } : conntrack(step, f)]),
  ) as FactSpecs<`${S}.${ConntrackField}`>;
}

/**
 * A client's wait after a delete-pod or recreate-pod step: `<step>.settleSeconds` (the first answer
 * that showed the change), `.settleAfterSeconds` (the start of the last that did not: the change
 * came between the two) and `.settlePolls`.
 */
export function clientSettleFacts<S extends string>(step: S): FactSpecs<`${S}.${'settleSeconds' | 'settleAfterSeconds' | 'settlePolls'}`> {
  return {
    [`${step}.settleSeconds`]: settle(step, 'seconds'),
    [`${step}.settleAfterSeconds`]: settle(step, 'afterSeconds'),
    [`${step}.settlePolls`]: settle(step, 'polls'),
  } as FactSpecs<`${S}.${'settleSeconds' | 'settleAfterSeconds' | 'settlePolls'}`>;
}

/** A delete-pod step's `<step>.settleSeconds` and `.settlePolls`. */
export function settleFacts<S extends string>(step: S): FactSpecs<`${S}.settleSeconds` | `${S}.settlePolls`> {
  return { [`${step}.settleSeconds`]: settle(step, 'seconds'), [`${step}.settlePolls`]: settle(step, 'polls') } as FactSpecs<
    `${S}.settleSeconds` | `${S}.settlePolls`
  >;
}

/** `nft list table`: a verdict map's element for a port, as `<prefix>.element`, `.port`, `.verdict` and `.comment`. */
export function nftVerdictFacts<P extends string>(
  prefix: P,
  step: string,
  query: VerdictQuery,
): FactSpecs<`${P}.${'element' | 'port' | 'verdict' | 'comment'}`> {
  return Object.fromEntries(
    (['element', 'port', 'verdict', 'comment'] as const).map((f) => [`${prefix}.${f}`, nft.verdict(step, query, f)]),
  ) as FactSpecs<`${P}.${'element' | 'port' | 'verdict' | 'comment'}`>;
}

/**
 * A step that sent many requests and printed one answer each ("<who> <status> <address asked>",
 * extract/answers.ts): `<step>.timeout`, `.requests`, `.answered` (HTTP 200) and `.via.<node>`, how
 * many went to each node's InternalIP.
 */
export function answerFacts<S extends string, N extends string>(
  step: S,
  nodes: readonly N[],
): FactSpecs<`${S}.${'timeout' | 'requests' | 'answered'}` | `${S}.via.${N}`> {
  const answers = (s: StepSnapshot) => parseAnswers(s.stdout);
  return factsFrom<`${S}.${'timeout' | 'requests' | 'answered'}` | `${S}.via.${N}`>([
    [`${step}.timeout`, curl.timeout(step)],
    [`${step}.requests`, fromStep(step, (s) => String(answers(s).length))],
    [`${step}.answered`, fromStep(step, (s) => String(countWhere(answers(s), 'status', '200')))],
    ...nodes.map((n) => [`${step}.via.${n}`, fromStep(step, (s, run) => String(countWhere(answers(s), 'via', nodeIP(run, n))))] as const),
  ]);
}

/**
 * A step's answers (one line each, as answerFacts reads them): which pods answered (HTTP 200), sorted
 * and comma-separated, or how many distinct ones. Whether affinity pins a client is `distinct` = 1.
 */
export const answered = {
  who: (step: string) => fromStep(step, (s) => distinctAnswerers(s).join(', ')),
  distinct: (step: string) => fromStep(step, (s) => String(distinctAnswerers(s).length)),
};

function distinctAnswerers(s: StepSnapshot): string[] {
  const who = [
    ...new Set(
      parseAnswers(s.stdout)
        .filter((a) => a.status === '200')
        .map((a) => a.who),
    ),
  ].sort();
  if (who.length === 0) throw new ExtractError('no request was answered with HTTP 200');
  return who;
}

/** What a group's count is checked against: how many answers could reach it, and the chance each one does. */
export interface ChoiceModel {
  trials: number;
  probability: number;
}

export type ChoiceField = 'count' | 'share' | 'expected' | 'bound' | 'expectedShare' | 'boundShare';

/**
 * Answers counted per group against a binomial model (a random choice per
 * request, as kube-proxy makes one per connection): per group `<step>.count.<g>`
 * and `.share.<g>` (volatile: they differ on every run, within the bound),
 * `.expected.<g>`, and `.bound.<g>`, `sigmas` standard deviations rounded up, with
 * both as shares of all answers. `who` names a group's answerer in the run;
 * `model` says how many answers could reach the group and with what chance.
 */
export function choiceFacts<S extends string, G extends string>(
  step: S,
  groups: readonly G[],
  options: { who: (run: RunSnapshot, group: G) => string; model: (answers: Answer[], run: RunSnapshot, group: G) => ChoiceModel; sigmas: number },
): FactSpecs<`${S}.${ChoiceField}.${G}`> {
  const sampled = (spec: FactSpec): FactSpec => ({
    ...spec,
    volatile: { reason: 'a count of random choices: it differs on every run, within the bound the claims check' },
  });
  const answers = (s: StepSnapshot) => parseAnswers(s.stdout);
  const count = (s: StepSnapshot, run: RunSnapshot, g: G) => countWhere(answers(s), 'who', options.who(run, g));
  const expect = (s: StepSnapshot, run: RunSnapshot, g: G) => {
    const { trials, probability } = options.model(answers(s), run, g);
    return binomialExpectation(trials, probability, options.sigmas);
  };
  const field = (read: (s: StepSnapshot, run: RunSnapshot, total: number) => string | FactValue) => fromStep(step, (s, run) => read(s, run, answers(s).length));
  return factsFrom<`${S}.${ChoiceField}.${G}`>(
    groups.flatMap((g) => [
      [`${step}.count.${g}`, sampled(field((s, run) => String(count(s, run, g))))] as const,
      [`${step}.share.${g}`, sampled(field((s, run, total) => share(count(s, run, g), total)))] as const,
      [
        `${step}.expected.${g}`,
        field((s, run) => ({ value: String(Math.round(expect(s, run, g).expected)), raw: String(expect(s, run, g).expected) })),
      ] as const,
      [`${step}.bound.${g}`, field((s, run) => String(expect(s, run, g).bound))] as const,
      [`${step}.expectedShare.${g}`, field((s, run, total) => share(expect(s, run, g).expected, total))] as const,
      [`${step}.boundShare.${g}`, field((s, run, total) => share(expect(s, run, g).bound, total))] as const,
    ]),
  );
}

/** Whether every group's count in a choiceFacts step lies within its bound of the expected count: the model's claim, for `holds`. */
export function withinBounds<const S extends string, const G extends string>(
  v: (id: NoInfer<`${S}.${'count' | 'expected' | 'bound'}.${G}`>) => string,
  step: S,
  groups: readonly G[],
): boolean {
  return groups.every((g) => Math.abs(Number(v(`${step}.count.${g}`)) - Number(v(`${step}.expected.${g}`))) <= Number(v(`${step}.bound.${g}`)));
}

/** Facts from [id, fact] pairs, for a family an article generates (per role, per policy): its ids typed as `Id`. */
export function factsFrom<Id extends string>(entries: ReadonlyArray<readonly [Id, FactSpec]>): FactSpecs<Id> {
  return Object.fromEntries(entries) as FactSpecs<Id>;
}
