// Building blocks for an article's facts.ts: one helper per kind of step output,
// so an article declares what it binds and not how each tool prints it.
import type { FactDef, FactInput, FactValue } from './facts.ts';
import type { RunSnapshot, StepSnapshot } from './schema.ts';
import { DECLARED_STEP, RUN_STEP } from './facts.ts';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { manifestValue } from './extract/manifest.ts';
import { ExtractError } from './errors.ts';
import { clientAddress, curlFailure, maxTime } from './extract/curl.ts';
import { durationSeconds } from './extract/duration.ts';
import { jsonField, parseHttpResponse } from './extract/http.ts';
import { findRule, findRules, optionValue, parseIptablesSave, type RuleQuery } from './extract/iptables-save.ts';
import { flowEntriesShown, parseConntrackList, type ConntrackEntry } from './extract/conntrack.ts';
import { findChain, findChainRule, findPortVerdict, findSet, parseNftTable } from './extract/nft.ts';
import { parseIpAddressJson, podGatewayOnNode } from './extract/ip-address.ts';
import { node } from './extract/run.ts';

const asValue = (v: string | FactValue): FactValue => (typeof v === 'string' ? { value: v } : v);

function stepOf(input: FactInput): StepSnapshot {
  if (!input.step) throw new ExtractError('this fact needs a step snapshot');
  return input.step;
}

/** A fact read from one step's snapshot. */
export function stepFact(id: string, step: string, derive: (step: StepSnapshot, run: RunSnapshot) => string | FactValue): FactDef {
  return { id, step, derive: (input) => asValue(derive(stepOf(input), input.run)) };
}

/** A fact read from run.yaml. */
export function runFact(id: string, derive: (run: RunSnapshot) => string | FactValue): FactDef {
  return { id, step: RUN_STEP, derive: (input) => asValue(derive(input.run)) };
}

/**
 * A value the experiment declares in a manifest (a replica count, a port): it
 * binds as declared, not measured. `file` is the manifest relative to the
 * article's folder, content/articles/<slug>/ under the working directory (as
 * the build and the capture run), read when the fact is derived.
 */
export function declaredFact(id: string, slug: string, file: string, object: string, path: string): FactDef {
  return {
    id,
    step: DECLARED_STEP,
    declared: { file },
    derive: () => {
      let text: string;
      try {
        text = readFileSync(resolve('content/articles', slug, file), 'utf8');
      } catch (error) {
        throw new ExtractError(`cannot read the manifest ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
      }
      return { value: manifestValue(text, object, path) };
    },
  };
}

/** The same def, skipped (not failed) by runs that do not have the value. */
export function optional(def: FactDef, reason: string): FactDef {
  return { ...def, optional: { reason } };
}

/** `<step>.rc` and `<step>.seconds` (rounded; raw = the exact milliseconds): every step has them. */
export function outcomeFacts(step: string): FactDef[] {
  return [stepFact(`${step}.rc`, step, (s) => String(s.exitCode)), stepFact(`${step}.seconds`, step, (s) => durationSeconds(s.durationMs))];
}

/**
 * The pod gateway as `node` itself holds it, read from a step that ran `ip -j -4 address show`
 * there: the address inside the node's podCIDR (run.yaml) on its pods' veths.
 */
export function podGatewayFact(id: string, step: string, nodeName: string): FactDef {
  return stepFact(id, step, (s, run) => podGatewayOnNode(parseIpAddressJson(s.stdout), node(run, nodeName).podCIDR).address);
}

/**
 * A delete-pod step's measured wait: seconds from the delete's return until kube-proxy's
 * health check first said 0 local endpoints, and how many polls that took.
 */
export function settleFacts(step: string): FactDef[] {
  const settle = (s: StepSnapshot) => {
    if (s.settle === undefined) throw new ExtractError(`step ${step} has no settle record (a delete-pod step with settleNode records one)`);
    return s.settle;
  };
  return [
    stepFact(`${step}.settleSeconds`, step, (s) => durationSeconds(settle(s).afterDeleteMs)),
    stepFact(`${step}.settlePolls`, step, (s) => String(settle(s).polls)),
  ];
}

/**
 * A curl step: rc, seconds, the --max-time it ran with, and either the backend's
 * `client=` address (answered) or curl's error message (failed).
 */
export function curlFacts(step: string, expect: 'answered' | 'failed'): FactDef[] {
  const defs = [...outcomeFacts(step), stepFact(`${step}.timeout`, step, (s) => maxTime(s.argv))];
  if (expect === 'answered') defs.push(stepFact(`${step}.client`, step, (s) => clientAddress(s.stdout)));
  else defs.push(stepFact(`${step}.error`, step, (s) => curlFailure(s.stderr).message));
  return defs;
}

/** A kube-proxy health check read with `curl --include`: status, reason phrase, the body's localEndpoints. */
export function healthCheckFacts(step: string): FactDef[] {
  return [
    stepFact(`${step}.status`, step, (s) => String(parseHttpResponse(s.stdout).status)),
    stepFact(`${step}.reason`, step, (s) => parseHttpResponse(s.stdout).reason),
    stepFact(`${step}.localEndpoints`, step, (s) => {
      const count = jsonField(parseHttpResponse(s.stdout), 'localEndpoints');
      if (typeof count !== 'number') throw new ExtractError(`expected localEndpoints to be a number, got ${JSON.stringify(count)}`);
      return String(count);
    }),
  ];
}

/** One iptables-save rule found by chain/target/--dport: the whole line, and its --dport. */
export function iptablesRuleFacts(prefix: string, step: string, query: (run: RunSnapshot) => RuleQuery): FactDef[] {
  const rule = (s: StepSnapshot, run: RunSnapshot) => findRule(parseIptablesSave(s.stdout), query(run));
  return [
    stepFact(`${prefix}Rule`, step, (s, run) => rule(s, run).line),
    stepFact(`${prefix}Port`, step, (s, run) => {
      const found = rule(s, run);
      const port = optionValue(found.args, '--dport');
      if (port === undefined) throw new ExtractError(`the rule has no --dport: ${found.line}`);
      return port;
    }),
  ];
}

/** The one rule of an iptables-save output that `query` matches, as the line iptables-save printed. */
export function iptablesRuleLineFact(id: string, step: string, query: RuleQuery): FactDef {
  return stepFact(id, step, (s) => findRule(parseIptablesSave(s.stdout), query).line);
}

/**
 * The one rule whose target starts with `targetPrefix` in the chain of the rule `sibling`
 * matches: a chain whose name is a hash (KUBE-EXT-HNMG67IFNYEJYCHA), found by a rule's comment.
 */
export function iptablesChainRuleFact(id: string, step: string, sibling: RuleQuery, targetPrefix: string): FactDef {
  return stepFact(id, step, (s) => {
    const save = parseIptablesSave(s.stdout);
    const { chain } = findRule(save, sibling);
    const found = findRules(save, { table: sibling.table, chain }).filter((r) => r.target?.startsWith(targetPrefix));
    if (found.length !== 1)
      throw new ExtractError(
        `expected one rule jumping to ${targetPrefix}… in chain ${chain}, found ${found.length}${found.length ? `: ${found.map((r) => r.line).join('; ')}` : ''}`,
      );
    return found[0]!.line;
  });
}

/** Entries of `conntrack -L`; the count is checked against conntrack's own "N flow entries" line. */
export function conntrackEntries(s: StepSnapshot): ConntrackEntry[] {
  const entries = parseConntrackList(s.stdout);
  const shown = flowEntriesShown(s.stderr);
  if (shown !== entries.length) {
    throw new ExtractError(`stderr says ${shown} flow entries were shown, but stdout has ${entries.length}`);
  }
  return entries;
}

/** `<step>.count` and, for the first entry, its line, state and both directions' src/dst/sport/dport. */
export function conntrackFacts(step: string): FactDef[] {
  const first = (s: StepSnapshot): ConntrackEntry => {
    const entry = conntrackEntries(s)[0];
    if (!entry) throw new ExtractError('looked for a first conntrack entry, but conntrack showed none');
    return entry;
  };
  const defs: FactDef[] = [
    stepFact(`${step}.count`, step, (s) => String(conntrackEntries(s).length)),
    stepFact(`${step}.first.line`, step, (s) => first(s).line),
    stepFact(`${step}.first.state`, step, (s) => {
      const state = first(s).state;
      if (!state) throw new ExtractError(`the first entry has no state: ${first(s).line}`);
      return state;
    }),
  ];
  for (const direction of ['original', 'reply'] as const) {
    for (const key of ['src', 'dst', 'sport', 'dport'] as const) {
      defs.push(
        stepFact(`${step}.first.${direction}.${key}`, step, (s) => {
          const value = first(s)[direction][key];
          if (value === undefined) throw new ExtractError(`the first entry's ${direction} direction has no ${key}=: ${first(s).line}`);
          return value;
        }),
      );
    }
  }
  return defs;
}

/**
 * `nft list table`: the element of a verdict map for a port (`<prefix>.element`,
 * `.port`, `.verdict`, `.comment`), found by map name, protocol and port.
 */
export function nftVerdictFacts(prefix: string, step: string, query: (run: RunSnapshot) => { map: string; protocol: string; port: string }): FactDef[] {
  const element = (s: StepSnapshot, run: RunSnapshot) => {
    const q = query(run);
    return findPortVerdict(findSet(parseNftTable(s.stdout), q.map), q.protocol, q.port);
  };
  return [
    stepFact(`${prefix}.element`, step, (s, run) => element(s, run).text),
    stepFact(`${prefix}.port`, step, (s, run) => element(s, run).port),
    stepFact(`${prefix}.verdict`, step, (s, run) => element(s, run).verdict),
    stepFact(`${prefix}.comment`, step, (s, run) => {
      const found = element(s, run);
      if (found.comment === undefined) throw new ExtractError(`the element has no comment: ${found.text}`);
      return found.comment;
    }),
  ];
}

/** `nft list table`: the one rule of `chain` that mentions `text`, as printed. */
export function nftRuleFact(id: string, step: string, chain: string, text: string): FactDef {
  return stepFact(id, step, (s) => findChainRule(parseNftTable(s.stdout), chain, text));
}

/** `nft list table`: a base chain's `type ... hook ...` line. */
export function nftHookFact(id: string, step: string, chain: string): FactDef {
  return stepFact(id, step, (s) => {
    const hook = findChain(parseNftTable(s.stdout), chain).hook;
    if (hook === undefined) throw new ExtractError(`chain "${chain}" is not a base chain (no hook)`);
    return hook;
  });
}

/** `nft list table`: a set's elements, joined by ", ". */
export function nftSetFact(id: string, step: string, set: string): FactDef {
  return stepFact(id, step, (s) => findSet(parseNftTable(s.stdout), set).elements.join(', '));
}
