// iptables-save's text: `*table`, `:CHAIN POLICY [packets:bytes]`, `-A CHAIN args`,
// `COMMIT`, `# comments`. Rules keep the exact line iptables-save printed, so a
// page can quote it verbatim.
import { ExtractError } from '../errors.ts';

export interface IptablesChain {
  name: string;
  /** ACCEPT/DROP for built-in chains, "-" for user-defined ones. */
  policy: string;
  counters: string;
}

export interface IptablesRule {
  table: string;
  chain: string;
  /** The line exactly as printed (without its newline). */
  line: string;
  /** 1-based line number in the output. */
  lineNumber: number;
  /** The arguments after `-A CHAIN`, unquoted. */
  args: string[];
  /** The `-j` (or `-g`) target, if any. */
  target: string | undefined;
  /** The packets it matched, as `iptables-save -c` prints them before -A; undefined without -c. */
  packets: number | undefined;
}

export interface IptablesTable {
  name: string;
  chains: IptablesChain[];
  rules: IptablesRule[];
}

export interface IptablesSave {
  tables: IptablesTable[];
}

/** Splits a rule's arguments the way iptables-save quotes them: "..." with \" and \\ escapes. */
export function splitRuleArgs(text: string): string[] {
  const args: string[] = [];
  let current = '';
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') {
      inWord = true;
      for (i++; i < text.length && text[i] !== '"'; i++) {
        if (text[i] === '\\' && i + 1 < text.length) i++;
        current += text[i];
      }
      if (i >= text.length) throw new ExtractError(`unterminated quote in ${JSON.stringify(text)}`);
    } else if (c === ' ' || c === '\t') {
      if (inWord) args.push(current);
      current = '';
      inWord = false;
    } else {
      current += c;
      inWord = true;
    }
  }
  if (inWord) args.push(current);
  return args;
}

/** The value after `option` in a rule's args ("--dport" -> "31862"); undefined when absent. */
export function optionValue(args: readonly string[], option: string): string | undefined {
  const i = args.indexOf(option);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : undefined;
}

export function parseIptablesSave(text: string): IptablesSave {
  const tables: IptablesTable[] = [];
  let table: IptablesTable | undefined;
  const lines = text.split('\n');
  lines.forEach((raw, index) => {
    const line = raw.replace(/\r$/, '');
    const lineNumber = index + 1;
    const fail = (expected: string): never => {
      throw new ExtractError(`iptables-save output line ${lineNumber}: expected ${expected}, got ${JSON.stringify(line)}`);
    };
    if (line.trim() === '' || line.startsWith('#')) return;
    if (line.startsWith('*')) {
      table = { name: line.slice(1), chains: [], rules: [] };
      tables.push(table);
      return;
    }
    if (line === 'COMMIT') {
      if (!table) fail('a "*table" line before COMMIT');
      table = undefined;
      return;
    }
    if (!table) return fail('a "*table" line first');
    if (line.startsWith(':')) {
      const m = /^:(\S+) (\S+)(?: (\[\d+:\d+\]))?$/.exec(line);
      if (!m) return fail('a chain line ":NAME POLICY [packets:bytes]"');
      table.chains.push({ name: m[1]!, policy: m[2]!, counters: m[3] ?? '' });
      return;
    }
    // `iptables-save -c` puts [packets:bytes] before -A.
    const m = /^(?:\[(\d+):\d+\] )?-A (\S+)(?: (.*))?$/.exec(line);
    if (!m) return fail('a rule line "-A CHAIN ..."');
    const args = splitRuleArgs(m[3] ?? '');
    table.rules.push({
      table: table.name,
      chain: m[2]!,
      line,
      lineNumber,
      args,
      target: optionValue(args, '-j') ?? optionValue(args, '-g'),
      packets: m[1] === undefined ? undefined : Number(m[1]),
    });
  });
  if (table) throw new ExtractError(`iptables-save output: table "${table.name}" has no COMMIT (the output was cut short)`);
  return { tables };
}

export interface RuleQuery {
  table?: string;
  chain?: string;
  target?: string;
  /** Matched against the rule's --dport. */
  dport?: string | number;
  /** Matched against the rule's --comment, as iptables-save quotes it (without the quotes). */
  comment?: string;
}

const describeQuery = (q: RuleQuery): string =>
  [
    q.table && `table ${q.table}`,
    q.chain && `chain ${q.chain}`,
    q.target && `target ${q.target}`,
    q.dport !== undefined && `--dport ${q.dport}`,
    q.comment !== undefined && `--comment ${JSON.stringify(q.comment)}`,
  ]
    .filter(Boolean)
    .join(', ');

export function findRules(save: IptablesSave, query: RuleQuery): IptablesRule[] {
  return save.tables
    .filter((t) => query.table === undefined || t.name === query.table)
    .flatMap((t) => t.rules)
    .filter(
      (r) =>
        (query.chain === undefined || r.chain === query.chain) &&
        (query.target === undefined || r.target === query.target) &&
        (query.dport === undefined || optionValue(r.args, '--dport') === String(query.dport)) &&
        (query.comment === undefined || optionValue(r.args, '--comment') === query.comment),
    );
}

/** Exactly one rule matching the query; otherwise an ExtractError saying what was looked for and what exists. */
export function findRule(save: IptablesSave, query: RuleQuery): IptablesRule {
  const found = findRules(save, query);
  if (found.length === 1) return found[0]!;
  if (found.length > 1) {
    throw new ExtractError(`expected one rule with ${describeQuery(query)}, found ${found.length}: ${found.map((r) => `line ${r.lineNumber}`).join(', ')}`);
  }
  const inChain = query.chain ? findRules(save, { table: query.table, chain: query.chain }) : [];
  const seen = query.chain
    ? inChain.length
      ? `chain ${query.chain} has: ${inChain.map((r) => JSON.stringify(r.line)).join('; ')}`
      : `chain ${query.chain} has no rules`
    : `tables present: ${save.tables.map((t) => t.name).join(', ') || 'none'}`;
  throw new ExtractError(`looked for a rule with ${describeQuery(query)} in iptables-save output, found none (${seen})`);
}
