// Turning NodeProxyRules into iptables-restore input, and reading iptables-save output.
import { isServiceChainName } from './chain-names.ts';
import { BUILTIN_CHAINS, type NodeProxyRules, type TableName, type TableRules } from './rules.ts';

const TABLE_ORDER: TableName[] = ['filter', 'nat'];

function byteOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The chain a save-form rule (`-A CHAIN ...`) appends to. */
export function ruleChain(rule: string): string {
  const match = /^-A (\S+)/.exec(rule);
  if (match === null) throw new Error(`not an -A rule: ${rule}`);
  return match[1] as string;
}

/**
 * One table complete, laid out as iptables-save prints it: built-in chains in
 * hook order with policy ACCEPT, user chains sorted, rules grouped by chain.
 */
export function renderTable(table: TableName, rules: TableRules): string {
  const builtins = BUILTIN_CHAINS[table];
  const userChains = [...new Set([...rules.baseChains, ...rules.chains])].sort(byteOrder);
  const allRules = [...rules.jumps, ...rules.rules];
  const lines = [`*${table}`];
  for (const chain of builtins) lines.push(`:${chain} ACCEPT [0:0]`);
  for (const chain of userChains) lines.push(`:${chain} - [0:0]`);
  for (const chain of [...builtins, ...userChains]) {
    for (const rule of allRules) if (ruleChain(rule) === chain) lines.push(rule);
  }
  const unknown = allRules.filter((rule) => !builtins.includes(ruleChain(rule)) && !userChains.includes(ruleChain(rule)));
  if (unknown.length > 0) throw new Error(`${table}: rules for chains never declared: ${unknown.join(' | ')}`);
  lines.push('COMMIT');
  return `${lines.join('\n')}\n`;
}

/** The filter and nat tables of a node, for a plain `iptables-restore` into an empty namespace. */
export function renderFullRestore(rules: NodeProxyRules): string {
  return TABLE_ORDER.map((table) => renderTable(table, rules[table])).join('');
}

/**
 * What kube-proxy feeds `iptables-restore --noflush --counters` on a sync: its
 * own chains (a chain line flushes an existing chain), its rules, and `-X` for
 * service chains that exist in the nat table but are no longer used.
 */
export function renderSyncRestore(rules: NodeProxyRules, existingNatChains: Iterable<string>): string {
  const active = new Set(rules.nat.chains);
  const stale = [...existingNatChains].filter((chain) => isServiceChainName(chain) && !active.has(chain)).sort(byteOrder);
  const lines: string[] = [];
  for (const table of TABLE_ORDER) {
    const { chains, rules: tableRules } = rules[table];
    lines.push(`*${table}`);
    for (const chain of chains) lines.push(`:${chain} - [0:0]`);
    if (table === 'nat') for (const chain of stale) lines.push(`:${chain} - [0:0]`);
    lines.push(...tableRules);
    if (table === 'nat') for (const chain of stale) lines.push(`-X ${chain}`);
    lines.push('COMMIT');
  }
  return `${lines.join('\n')}\n`;
}

/** Chain names declared in iptables-save output (`:NAME POLICY [p:b]`). */
export function savedChains(saveOutput: string): string[] {
  const chains: string[] = [];
  for (const row of saveOutput.split('\n')) {
    const match = /^:(\S+) /.exec(row);
    if (match !== null) chains.push(match[1] as string);
  }
  return chains;
}

/** iptables-save output without its `#` header/footer lines and with counters zeroed, for comparison. */
export function normalizeSave(saveOutput: string): string {
  return saveOutput
    .split('\n')
    .filter((row) => !row.startsWith('#'))
    .map((row) => row.replace(/^(:\S+ \S+) \[\d+:\d+\]$/, '$1 [0:0]'))
    .join('\n');
}
