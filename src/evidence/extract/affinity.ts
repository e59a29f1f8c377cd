// Where kube-proxy remembers a client under sessionAffinity: ClientIP. In
// iptables mode the Service's chain holds one `-m recent --rcheck` rule per
// endpoint, the one whose list holds the client matching its new connections
// (`iptables-save -c` counts them); in nftables mode each endpoint has a set
// `affinity-…` whose elements are the clients it is remembered for. Pure.
import { ExtractError } from '../errors.ts';
import { optionValue, type IptablesSave } from './iptables-save.ts';
import type { NftTable } from './nft.ts';

export interface RecentCheck {
  /** The rule as iptables-save printed it, counters first. */
  line: string;
  /** New connections it sent to its endpoint: the ones the client was remembered for. */
  packets: number;
  /** The endpoint's address, from the rule's comment (`default/s -> 10.244.1.5:80`). */
  endpoint: string;
  /** `--seconds`: how long after its last new connection a client is still remembered. */
  seconds: string;
}

/** A Service's `--rcheck` rules in the nat table, one per endpoint. */
export function recentChecks(save: IptablesSave, service: string): RecentCheck[] {
  const prefix = `${service} -> `;
  return save.tables
    .filter((t) => t.name === 'nat')
    .flatMap((t) => t.rules)
    .filter((r) => r.args.includes('--rcheck') && optionValue(r.args, '--comment')?.startsWith(prefix))
    .map((r) => {
      if (r.packets === undefined) throw new ExtractError(`the rule has no counters (iptables-save without -c): ${r.line}`);
      const endpoint = optionValue(r.args, '--comment')!.slice(prefix.length).replace(/:\d+$/, '');
      const seconds = optionValue(r.args, '--seconds');
      if (seconds === undefined) throw new ExtractError(`the --rcheck rule has no --seconds: ${r.line}`);
      return { line: r.line, packets: r.packets, endpoint, seconds };
    });
}

/** The one `--rcheck` rule of `service` ("default/s-sticky") that matched a connection: the endpoint the client is remembered for. */
export function rememberedRecentCheck(save: IptablesSave, service: string): RecentCheck {
  const checks = recentChecks(save, service);
  if (checks.length === 0) throw new ExtractError(`looked for --rcheck rules of ${service} in the nat table, found none`);
  const matched = checks.filter((c) => c.packets > 0);
  if (matched.length !== 1)
    throw new ExtractError(
      `expected one --rcheck rule of ${service} with matched packets, found ${matched.length} of ${checks.length}: ${checks.map((c) => c.line).join('; ')}`,
    );
  return matched[0]!;
}

/**
 * A Service's new connections by how they chose: `checked`, those an `--rcheck` rule sent on (the client
 * was remembered); `recorded`, every one its endpoints' `-m recent --set` rules recorded (all of them).
 */
export function recentTotals(save: IptablesSave, service: string): { checked: number; recorded: number } {
  const nat = save.tables.filter((t) => t.name === 'nat').flatMap((t) => t.rules);
  const recorded = nat.filter((r) => r.args.includes('recent') && r.args.includes('--set') && optionValue(r.args, '--comment') === service);
  if (recorded.length === 0) throw new ExtractError(`looked for the -m recent --set rules of ${service} in the nat table, found none`);
  const sum = (rules: typeof nat) =>
    rules.reduce((total, r) => {
      if (r.packets === undefined) throw new ExtractError(`the rule has no counters (iptables-save without -c): ${r.line}`);
      return total + r.packets;
    }, 0);
  return { checked: recentChecks(save, service).reduce((total, c) => total + c.packets, 0), recorded: sum(recorded) };
}

export interface AffinitySet {
  name: string;
  /** The endpoint's address, from the set's name (`affinity-…-default/s//tcp__10.244.1.5/80`). */
  endpoint: string;
  /** The set's timeout, as printed (`45s`). */
  timeout: string;
  /** The addresses it remembers, each element's first word. */
  clients: string[];
}

/** A Service's affinity sets in kube-proxy's table, one per endpoint. */
export function affinitySets(table: NftTable, service: string): AffinitySet[] {
  const marker = `-${service}/`;
  return table.sets
    .filter((s) => s.kind === 'set' && s.name.startsWith('affinity-') && s.name.includes(marker))
    .map((s) => {
      const endpoint = /__([^/]+)\/\d+$/.exec(s.name)?.[1];
      if (endpoint === undefined) throw new ExtractError(`the affinity set's name ends in no __<address>/<port>: ${s.name}`);
      if (s.timeout === undefined) throw new ExtractError(`the affinity set ${s.name} has no timeout`);
      return { name: s.name, endpoint: endpoint.replace(/^\[|\]$/g, ''), timeout: s.timeout, clients: s.elements.map((e) => e.split(/\s+/)[0]!) };
    });
}

/** The one affinity set of `service` that holds a client: the endpoint it is remembered for. */
export function rememberedAffinitySet(table: NftTable, service: string): AffinitySet {
  const sets = affinitySets(table, service);
  if (sets.length === 0) throw new ExtractError(`looked for affinity sets of ${service} in table ${table.family} ${table.name}, found none`);
  const holding = sets.filter((s) => s.clients.length > 0);
  if (holding.length !== 1)
    throw new ExtractError(
      `expected one affinity set of ${service} holding a client, found ${holding.length} of ${sets.length}: ${sets.map((s) => s.name).join(', ')}`,
    );
  return holding[0]!;
}
