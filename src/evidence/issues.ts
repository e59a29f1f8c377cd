// zod's issues, rewritten as one line each: `<file>: field "<path>": expected ..., got ...`.
import type { z } from 'zod';
import { describeValue } from './errors.ts';

type Path = readonly PropertyKey[];

/** `nodes[0].internalIP`, `versions.kernel`; the root is "the document". */
export function formatPath(path: Path): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out ? `.${String(key)}` : String(key);
  }
  return out;
}

// The parts of a zod v4 schema definition this module reads.
interface SchemaDef {
  type: string;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  valueType?: z.ZodType;
  innerType?: z.ZodType;
}
const defOf = (schema: z.ZodType): SchemaDef => (schema as unknown as { _zod: { def: SchemaDef } })._zod.def;

/** The schema that validates the value at `path`, unwrapping nullable/optional; undefined past a dead end. */
export function schemaAt(schema: z.ZodType, path: Path): z.ZodType | undefined {
  let current: z.ZodType | undefined = schema;
  for (const key of path) {
    current = current && unwrap(current);
    if (!current) return undefined;
    const def = defOf(current);
    if (def.type === 'object') current = def.shape?.[String(key)];
    else if (def.type === 'array') current = def.element;
    else if (def.type === 'record') current = def.valueType;
    else return undefined;
  }
  return current && unwrap(current);
}

function unwrap(schema: z.ZodType): z.ZodType {
  let current = schema;
  for (let def = defOf(current); (def.type === 'nullable' || def.type === 'optional') && def.innerType; def = defOf(current)) {
    current = def.innerType;
  }
  return current;
}

const isInteger = (schema: z.ZodType | undefined): boolean => Boolean(schema && (schema as unknown as { isInt?: boolean }).isInt);

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
  object: 'a mapping',
  array: 'a list',
  null: 'null',
};

const FORMAT_NAMES: Record<string, string> = {
  datetime: 'an ISO 8601 date-time with an offset (e.g. 2026-12-02T11:09:54.000Z)',
  ipv4: 'an IPv4 address',
  cidrv4: 'an IPv4 CIDR (e.g. 10.244.0.0/24)',
};

function isNullable(schema: z.ZodType, path: Path): boolean {
  // schemaAt unwraps; look one step up to see whether the field itself accepts null.
  const parent = path.length ? schemaAt(schema, path.slice(0, -1)) : undefined;
  const def = parent ? defOf(parent) : undefined;
  const field = def?.type === 'object' ? def.shape?.[String(path[path.length - 1])] : undefined;
  return field ? defOf(field).type === 'nullable' : false;
}

function expectation(issue: z.core.$ZodIssue, schema: z.ZodType): string {
  const target = schemaAt(schema, issue.path);
  switch (issue.code) {
    case 'invalid_type': {
      const base = issue.expected === 'number' && isInteger(target) ? 'an integer' : (TYPE_NAMES[issue.expected] ?? issue.expected);
      return isNullable(schema, issue.path) ? `${base} or null` : base;
    }
    case 'invalid_value':
      return issue.values.length === 1 ? JSON.stringify(issue.values[0]) : `one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'invalid_format':
      if (issue.format === 'regex') return issue.message;
      return FORMAT_NAMES[issue.format] ?? `a ${issue.format}`;
    case 'too_small': {
      const min = Number(issue.minimum);
      if (issue.origin === 'string') return min <= 1 ? 'a non-empty string' : `a string of at least ${min} characters`;
      if (issue.origin === 'array') return `a list of at least ${min} item${min === 1 ? '' : 's'}`;
      return `${isInteger(target) ? 'an integer' : 'a number'} ${issue.inclusive ? '>=' : '>'} ${min}`;
    }
    case 'too_big': {
      const max = Number(issue.maximum);
      if (issue.origin === 'string') return `a string of at most ${max} characters`;
      if (issue.origin === 'array') return `a list of at most ${max} items`;
      return `${isInteger(target) ? 'an integer' : 'a number'} ${issue.inclusive ? '<=' : '<'} ${max}`;
    }
    case 'not_multiple_of':
      return `a multiple of ${String(issue.divisor)}`;
    default:
      return issue.message;
  }
}

/** One line per issue, prefixed with the file. Needs the issues of `safeParse(data, { reportInput: true })`. */
export function formatIssues(file: string, issues: readonly z.core.$ZodIssue[], schema: z.ZodType): string[] {
  const lines: string[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      const container = schemaAt(schema, issue.path);
      const shape = container ? defOf(container).shape : undefined;
      const allowed = shape ? ` (allowed: ${Object.keys(shape).join(', ')})` : '';
      for (const key of issue.keys) {
        lines.push(`${file}: field "${formatPath([...issue.path, key])}": unknown field${allowed}`);
      }
      continue;
    }
    const where = issue.path.length ? `field "${formatPath(issue.path)}"` : 'the document';
    const input = (issue as { input?: unknown }).input;
    const expected = expectation(issue, schema);
    if (input === undefined && issue.code === 'invalid_type') lines.push(`${file}: ${where}: missing; expected ${expected}`);
    else lines.push(`${file}: ${where}: expected ${expected}, got ${describeValue(input)}`);
  }
  return lines;
}
