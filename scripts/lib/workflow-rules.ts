// What `npm run lint:workflows` holds the workflows to besides actionlint's
// checks: every action pinned by commit SHA, its tag in a comment (a tag can be
// moved to other code; a commit cannot), and no credentials left where steps
// that do not need them can read them: actions/checkout keeps no token in
// .git/config, and a token is given in the env of the one step that uses it,
// never to a whole job or workflow. Pure: the caller reads the files.
import { load } from 'js-yaml';
import { quoted } from '../../src/evidence/terminal-text.ts';

/** `owner/repo[/path]@<40 hex> # <tag>`: the pin, then the tag it stands for. */
const PINNED = /^[\w.-]+\/[\w.-]+(?:\/[^@\s]+)?@[0-9a-f]{40}$/;
const TAG_COMMENT = /^#\s*v\d+(?:\.\d+)*\S*$/;
/** An expression that hands over a credential. */
const CREDENTIAL = /\$\{\{\s*(?:secrets\.[\w-]+|github\.token)\s*\}\}/;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The `uses:` lines of a workflow that are not pinned by commit SHA with their tag in a comment, one line each. */
function pinProblems(file: string, text: string): string[] {
  const problems: string[] = [];
  for (const [n, line] of text.split('\n').entries()) {
    const m = /^\s*(?:-\s+)?uses:\s*(['"]?)([^'"\s#]+)\1\s*(#.*)?$/.exec(line);
    if (!m) continue;
    const ref = m[2]!;
    // A local action is the checkout's own code; a container image is pinned by digest, not by tag.
    if (ref.startsWith('./') || ref.startsWith('docker://')) continue;
    if (!PINNED.test(ref) || !TAG_COMMENT.test((m[3] ?? '').trim()))
      problems.push(
        `${file}:${n + 1}: uses ${quoted(ref)}${m[3] ? ` ${m[3].trim()}` : ''}: expected the action pinned by commit SHA with its tag in a comment (uses: ${ref.split('@')[0]}@<40 hex digits> # v1.2.3)`,
      );
  }
  return problems;
}

/** Credentials in a workflow's or a job's env: every step of it could read them. */
function envProblems(file: string, env: unknown, field: string): string[] {
  if (!isObject(env)) return [];
  return Object.entries(env)
    .filter(([, value]) => typeof value === 'string' && CREDENTIAL.test(value))
    .map(([name, value]) => `${file}: field "${field}.${name}" is ${quoted(String(value))}: expected a credential only in the env of the step that uses it`);
}

/** Every problem of one workflow file, one line each, naming the file, the field or line and what was expected. */
export function workflowProblems(file: string, text: string): string[] {
  const problems = pinProblems(file, text);
  let workflow: unknown;
  try {
    workflow = load(text);
  } catch {
    return problems; // actionlint names the syntax error
  }
  if (!isObject(workflow)) return problems;
  problems.push(...envProblems(file, workflow.env, 'env'));
  for (const [job, def] of Object.entries(isObject(workflow.jobs) ? workflow.jobs : {})) {
    if (!isObject(def)) continue;
    problems.push(...envProblems(file, def.env, `jobs.${job}.env`));
    for (const [i, step] of (Array.isArray(def.steps) ? def.steps : []).entries()) {
      if (!isObject(step) || typeof step.uses !== 'string' || !step.uses.startsWith('actions/checkout@')) continue;
      const persist = isObject(step.with) ? step.with['persist-credentials'] : undefined;
      if (persist !== false)
        problems.push(
          `${file}: field "jobs.${job}.steps[${i}].with.persist-credentials" (actions/checkout) is ${persist === undefined ? 'not set' : quoted(String(persist))}: expected false (otherwise the token stays in .git/config for every later step)`,
        );
    }
  }
  return problems;
}
