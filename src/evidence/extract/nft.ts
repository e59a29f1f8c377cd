// `nft list ruleset` and `nft list table` text: tables of sets, maps and chains,
// one statement a line, a set's or map's `elements = { ... }` possibly over
// several lines. Chains keep their rules as printed, so a page can quote them
// verbatim. Pure.
import { ExtractError } from '../errors.ts';

export interface NftChain {
  name: string;
  /** The `type ... hook ... priority ...; policy ...;` line of a base chain, as printed. */
  hook: string | undefined;
  /** Rule lines as printed, trimmed, in order (comments of the chain itself excluded). */
  rules: string[];
}

export interface NftSet {
  kind: 'set' | 'map';
  name: string;
  type: string | undefined;
  comment: string | undefined;
  /** How long an element lives unless renewed (`timeout 45s`), as printed; a set without one keeps its elements. */
  timeout: string | undefined;
  /** Each element as printed, e.g. `tcp . 30399 comment "default/s-local" : drop`. */
  elements: string[];
}

export interface NftTable {
  family: string;
  name: string;
  sets: NftSet[];
  chains: NftChain[];
}

/** Splits `a, b, "c, d"` at the commas outside double quotes. */
function splitElements(text: string): string[] {
  const out: string[] = [];
  let current = '';
  let quoted = false;
  for (const ch of text) {
    if (ch === '"') quoted = !quoted;
    if (ch === ',' && !quoted) {
      out.push(current.trim());
      current = '';
    } else current += ch;
  }
  if (current.trim()) out.push(current.trim());
  return out;
}

const unquote = (text: string) => text.replace(/^"(.*)"$/, '$1');

export function parseNftTable(text: string): NftTable {
  const lines = text.split('\n');
  const head = /^table\s+(\S+)\s+(\S+)\s*\{$/.exec(lines[0]?.trim() ?? '');
  if (!head) throw new ExtractError(`expected "table <family> <name> {" on the first line, got ${JSON.stringify((lines[0] ?? '').slice(0, 80))}`);
  const table: NftTable = { family: head[1]!, name: head[2]!, sets: [], chains: [] };
  let set: NftSet | null = null;
  let chain: NftChain | null = null;
  let elements: string | null = null;
  for (const raw of lines.slice(1)) {
    const line = raw.trim();
    if (elements !== null) {
      elements += ` ${line}`;
      if (line.endsWith('}')) {
        set!.elements = splitElements(elements.replace(/^\{/, '').replace(/\}$/, ''));
        elements = null;
      }
      continue;
    }
    const opening = /^(set|map|chain)\s+(.+?)\s*\{$/.exec(line);
    if (opening) {
      if (opening[1] === 'chain') {
        chain = { name: opening[2]!, hook: undefined, rules: [] };
        table.chains.push(chain);
      } else {
        set = { kind: opening[1] as 'set' | 'map', name: opening[2]!, type: undefined, comment: undefined, timeout: undefined, elements: [] };
        table.sets.push(set);
      }
      continue;
    }
    if (line === '}') {
      set = null;
      chain = null;
      continue;
    }
    if (line === '') continue;
    if (set) {
      if (line.startsWith('type ')) set.type = line.slice(5);
      else if (line.startsWith('comment ')) set.comment = unquote(line.slice(8));
      else if (line.startsWith('timeout ')) set.timeout = line.slice(8);
      else if (line.startsWith('elements = {')) {
        const rest = line.slice('elements = '.length);
        if (rest.endsWith('}')) set.elements = splitElements(rest.slice(1, -1));
        else elements = rest;
      }
    } else if (chain) {
      if (line.startsWith('type ') && line.includes(' hook ')) chain.hook = line;
      else if (!line.startsWith('comment ')) chain.rules.push(line);
    }
  }
  return table;
}

/**
 * Every table of `nft list ruleset` (or of `nft list table`, one table), in order: each starts with a
 * `table <family> <name> {` line at the margin and ends with the `}` there.
 */
export function parseNftRuleset(text: string): NftTable[] {
  const blocks: string[][] = [];
  let current: string[] | null = null;
  for (const line of text.split('\n')) {
    if (/^table\s/.test(line)) blocks.push((current = [line]));
    else if (current !== null) {
      current.push(line);
      if (line === '}') current = null;
    } else if (line.trim() !== '' && !line.startsWith('#'))
      throw new ExtractError(`expected "table <family> <name> {" at the margin, got ${JSON.stringify(line.slice(0, 80))}`);
  }
  if (blocks.length === 0)
    throw new ExtractError(`expected "table <family> <name> {" on the first line, got ${JSON.stringify((text.split('\n')[0] ?? '').slice(0, 80))}`);
  return blocks.map((lines) => parseNftTable(lines.join('\n')));
}

/** The one table `family name` of a ruleset: kube-proxy's is `ip kube-proxy` (IPv4) beside `ip6 kube-proxy` and iptables-nft's. */
export function findTable(tables: readonly NftTable[], family: string, name: string): NftTable {
  const found = tables.filter((t) => t.family === family && t.name === name);
  if (found.length !== 1)
    throw new ExtractError(
      `looked for one table ${family} ${name}, found ${found.length}; the ruleset has ${tables.map((t) => `${t.family} ${t.name}`).join(', ') || 'none'}`,
    );
  return found[0]!;
}

export function findSet(table: NftTable, name: string): NftSet {
  const found = table.sets.find((s) => s.name === name);
  if (!found)
    throw new ExtractError(
      `looked for set or map "${name}" in table ${table.family} ${table.name}; it has ${table.sets.map((s) => s.name).join(', ') || 'none'}`,
    );
  return found;
}

export function findChain(table: NftTable, name: string): NftChain {
  const found = table.chains.find((c) => c.name === name);
  if (!found)
    throw new ExtractError(`looked for chain "${name}" in table ${table.family} ${table.name}; it has ${table.chains.map((c) => c.name).join(', ') || 'none'}`);
  return found;
}

/** The one rule of `chain` that mentions `text` (a jump target, a map's `@name`). */
export function findChainRule(table: NftTable, chain: string, text: string): string {
  const rules = findChain(table, chain).rules.filter((r) => r.includes(text));
  if (rules.length !== 1) throw new ExtractError(`looked for one rule of chain "${chain}" with ${JSON.stringify(text)}, found ${rules.length}`);
  return rules[0]!;
}

export interface VerdictElement {
  /** The element as printed. */
  text: string;
  /** A Service map's key starts with the ClusterIP (`10.96.1.2 . tcp . 80`); a NodePort map's does not. */
  address: string | undefined;
  protocol: string;
  port: string;
  comment: string | undefined;
  verdict: string;
}

/**
 * A verdict map's element for `protocol . port` (`tcp . 30399 comment "default/s-local" : drop`), or for
 * `address . protocol . port` when an address is given (`10.96.1.2 . tcp . 80 comment "default/s-local" : drop`).
 */
export function findPortVerdict(set: NftSet, protocol: string, port: string, address?: string): VerdictElement {
  for (const text of set.elements) {
    const m = /^(?:(\d{1,3}(?:\.\d{1,3}){3})\s+\.\s+)?(\S+)\s+\.\s+(\d+)(?:\s+comment\s+"([^"]*)")?\s+:\s+(.+)$/.exec(text);
    if (m && m[1] === address && m[2] === protocol && m[3] === port)
      return { text, address: m[1], protocol: m[2]!, port: m[3]!, comment: m[4], verdict: m[5]! };
  }
  const key = [address, protocol, port].filter((k) => k !== undefined).join(' . ');
  throw new ExtractError(`looked for ${key} in map "${set.name}"; it holds ${set.elements.length ? set.elements.join('; ') : 'no elements'}`);
}
