import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { loadSnapshots, parseStepSnapshot } from '../../src/evidence/load.ts';
import { EvidenceError } from '../../src/evidence/errors.ts';
import { experiment074 as article074 } from '../support/articles.ts';
import { experimentForVariant } from '../../src/experiment/variants.ts';
import { SNAPSHOT_SAMPLE_DIR } from '../fixtures/samples/read-sample.ts';

/** Article 074's default run: kube-proxy in iptables mode. */
const experiment = experimentForVariant(article074, 'iptables');

/** A private copy of the sample snapshots, changed by `edit`, removed after `check`. */
function withCopy(edit: (dir: string) => void, check: (dir: string) => void): void {
  const root = mkdtempSync(join(tmpdir(), 'shice-evidence-'));
  const dir = join(root, 'snapshots');
  try {
    cpSync(SNAPSHOT_SAMPLE_DIR, dir, { recursive: true });
    edit(dir);
    check(dir);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

const replaceIn = (file: string, from: string | RegExp, to: string) => {
  const text = readFileSync(file, 'utf8');
  const changed = text.replace(from, to);
  assert.notEqual(changed, text, `the edit of ${file} changed nothing`);
  writeFileSync(file, changed);
};

/** The problems of the EvidenceError `fn` throws. */
function problemsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof EvidenceError, `expected an EvidenceError, got ${String(error)}`);
    assert.equal(error.message, error.problems.join('\n'));
    return error.problems;
  }
  assert.fail('expected an EvidenceError, nothing was thrown');
}

test('loads the sample run: run.yaml and every step of the experiment, in order', () => {
  const s = loadSnapshots(SNAPSHOT_SAMPLE_DIR);
  assert.equal(s.dir, SNAPSHOT_SAMPLE_DIR);
  assert.equal(s.run.slug, experiment.slug);
  assert.equal(s.run.driver, 'lab');
  assert.deepEqual(
    [...s.steps.keys()],
    experiment.steps.map((st) => st.id),
  );
  assert.equal(s.steps.get('local-via-worker2')!.exitCode, 28);
  assert.equal(s.files.run, relative(process.cwd(), join(SNAPSHOT_SAMPLE_DIR, 'run.yaml')));
  assert.equal(s.files.steps.get('health-worker'), relative(process.cwd(), join(SNAPSHOT_SAMPLE_DIR, 'health-worker.yaml')));
  // Timestamps stay strings (YAML 1.2 core schema has no timestamp type).
  assert.equal(typeof s.run.startedAt, 'string');
});

test('a missing folder and a missing run.yaml are named', () => {
  const missing = join(tmpdir(), 'shice-evidence-does-not-exist');
  assert.deepEqual(
    problemsOf(() => loadSnapshots(missing)),
    [`${missing}: snapshot folder not found; expected run.yaml and one <step>.yaml per step (npm run capture writes them)`],
  );
  withCopy(
    (dir) => rmSync(join(dir, 'run.yaml')),
    (dir) => {
      assert.deepEqual(
        problemsOf(() => loadSnapshots(dir)),
        [`${join(dir, 'run.yaml')}: file not found; expected the run's metadata (run id, driver, nodes, services, steps)`],
      );
    },
  );
});

test('a step listed in run.yaml but missing names the field and the file', () => {
  withCopy(
    (dir) => rmSync(join(dir, 'health-worker.yaml')),
    (dir) => {
      const index = experiment.steps.findIndex((s) => s.id === 'health-worker');
      assert.deepEqual(
        problemsOf(() => loadSnapshots(dir)),
        [`${join(dir, 'run.yaml')}: field "steps[${index}]": lists step "health-worker", but ${join(dir, 'health-worker.yaml')} does not exist`],
      );
    },
  );
});

test('a wrong type names the file, the field, what was expected and what was found', () => {
  withCopy(
    (dir) => replaceIn(join(dir, 'health-worker.yaml'), /^exitCode: 0$/m, 'exitCode: x'),
    (dir) => {
      assert.deepEqual(
        problemsOf(() => loadSnapshots(dir)),
        [`${join(dir, 'health-worker.yaml')}: field "exitCode": expected an integer, got "x"`],
      );
    },
  );
  withCopy(
    (dir) => replaceIn(join(dir, 'health-worker.yaml'), /^exitCode: 0$/m, 'exitCode: 0.5'),
    (dir) => {
      assert.match(problemsOf(() => loadSnapshots(dir))[0]!, /health-worker\.yaml: field "exitCode": expected an integer, got 0\.5$/);
    },
  );
});

test('every problem of every file is reported at once', () => {
  withCopy(
    (dir) => {
      replaceIn(join(dir, 'cluster-via-worker.yaml'), /^durationMs: .*$/m, 'durationMs: -3');
      replaceIn(join(dir, 'cluster-via-worker.yaml'), /^kind: exec$/m, 'kind: shell');
      replaceIn(join(dir, 'cluster-via-worker.yaml'), /^stderr: ''$/m, "stderr: ''\nextra: 1\nnote: hi");
      replaceIn(join(dir, 'iptables-worker2.yaml'), /^startedAt: .*$/m, "startedAt: '2026-12-02'");
      rmSync(join(dir, 'delete-backend.yaml'));
    },
    (dir) => {
      const f = (name: string) => join(dir, `${name}.yaml`);
      const problems = problemsOf(() => loadSnapshots(dir));
      assert.deepEqual(problems, [
        `${f('cluster-via-worker')}: field "kind": expected one of "exec", "delete-pod", "recreate-pod", got "shell"`,
        `${f('cluster-via-worker')}: field "durationMs": expected a number >= 0, got -3`,
        `${f('cluster-via-worker')}: field "extra": unknown field (allowed: id, kind, node, pod, title, command, argv, exitCode, timedOut, startedAt, durationMs, settle, stdout, stderr, stdoutEncoding, stderrEncoding, stdoutCut, stderrCut)`,
        `${f('cluster-via-worker')}: field "note": unknown field (allowed: id, kind, node, pod, title, command, argv, exitCode, timedOut, startedAt, durationMs, settle, stdout, stderr, stdoutEncoding, stderrEncoding, stdoutCut, stderrCut)`,
        `${f('iptables-worker2')}: field "startedAt": expected an ISO 8601 date-time with an offset (e.g. 2026-12-02T11:09:54.000Z), got "2026-12-02"`,
        `${join(dir, 'run.yaml')}: field "steps[${experiment.steps.findIndex((s) => s.id === 'delete-backend')}]": lists step "delete-backend", but ${f('delete-backend')} does not exist`,
      ]);
    },
  );
});

test("a step file whose id is not its file name, or whose node is not the run's, is refused", () => {
  withCopy(
    (dir) => replaceIn(join(dir, 'health-worker.yaml'), /^id: health-worker$/m, 'id: health'),
    (dir) => {
      assert.deepEqual(
        problemsOf(() => loadSnapshots(dir)),
        [`${join(dir, 'health-worker.yaml')}: field "id": expected "health-worker" (the file's name), got "health"`],
      );
    },
  );
  withCopy(
    (dir) => replaceIn(join(dir, 'conntrack-worker2.yaml'), /^node: worker2$/m, 'node: worker3'),
    (dir) => {
      assert.deepEqual(
        problemsOf(() => loadSnapshots(dir)),
        [
          `${join(dir, 'conntrack-worker2.yaml')}: field "node": expected one of the run's nodes or "host" (control-plane, worker, worker2, host), got "worker3"`,
        ],
      );
    },
  );
});

test('a YAML syntax error names the file, line and column; an empty file is named too', () => {
  withCopy(
    (dir) => writeFileSync(join(dir, 'health-worker2.yaml'), 'id: health-worker2\nkind: [exec\nnode: control-plane\n'),
    (dir) => {
      const [problem] = problemsOf(() => loadSnapshots(dir));
      assert.match(problem!, new RegExp(`^${join(dir, 'health-worker2.yaml').replace(/[.]/g, '\\.')}:3:\\d+: YAML syntax error: `));
    },
  );
  withCopy(
    (dir) => writeFileSync(join(dir, 'health-worker2.yaml'), ''),
    (dir) => {
      assert.deepEqual(
        problemsOf(() => loadSnapshots(dir)),
        [`${join(dir, 'health-worker2.yaml')}: the file is empty; expected a YAML mapping`],
      );
    },
  );
  withCopy(
    (dir) => writeFileSync(join(dir, 'health-worker2.yaml'), '- a\n- b\n'),
    (dir) => {
      assert.deepEqual(
        problemsOf(() => loadSnapshots(dir)),
        [`${join(dir, 'health-worker2.yaml')}: the document: expected a mapping, got a list of 2`],
      );
    },
  );
});

test('run.yaml: schema problems, missing fields, duplicates and pods on unknown nodes', () => {
  withCopy(
    (dir) => {
      replaceIn(join(dir, 'run.yaml'), /^driver: lab$/m, 'driver: docker');
      replaceIn(join(dir, 'run.yaml'), /internalIP: 172\.20\.0\.4/, 'internalIP: 172.20.0');
      replaceIn(join(dir, 'run.yaml'), /^ {4}healthCheckNodePort: \d+$/m, '    healthCheckNodePort: 70000');
      replaceIn(join(dir, 'run.yaml'), /^slug: .*\n/m, '');
    },
    (dir) => {
      const run = join(dir, 'run.yaml');
      assert.deepEqual(
        problemsOf(() => loadSnapshots(dir)),
        [
          `${run}: field "slug": missing; expected a string`,
          `${run}: field "driver": expected one of "kind", "lab", "existing", got "docker"`,
          `${run}: field "nodes[2].internalIP": expected an IPv4 address, got "172.20.0"`,
          `${run}: field "services[2].healthCheckNodePort": expected an integer <= 65535, got 70000`,
        ],
      );
    },
  );
  withCopy(
    (dir) => {
      replaceIn(join(dir, 'run.yaml'), /^ {2}- health-worker2$/m, '  - health-worker2\n  - health-worker');
      replaceIn(join(dir, 'run.yaml'), /^ {4}node: worker$/m, '    node: worker9');
    },
    (dir) => {
      const run = join(dir, 'run.yaml');
      const index = experiment.steps.findIndex((s) => s.id === 'health-worker2') + 1;
      assert.deepEqual(
        problemsOf(() => loadSnapshots(dir)),
        [
          `${run}: field "steps[${index}]": "health-worker" appears twice; expected unique step ids`,
          `${run}: field "pods[0].node": expected one of the run's nodes (control-plane, worker, worker2), got "worker9"`,
        ],
      );
    },
  );
  withCopy(
    (dir) => replaceIn(join(dir, 'run.yaml'), /^ {4}healthCheckNodePort: null$/m, "    healthCheckNodePort: 'none'"),
    (dir) => {
      assert.deepEqual(
        problemsOf(() => loadSnapshots(dir)),
        [`${join(dir, 'run.yaml')}: field "services[0].healthCheckNodePort": expected an integer or null, got "none"`],
      );
    },
  );
});

test("run.yaml without a step: refused, but in a verify's run on a cluster that refused its node agents", () => {
  const noSteps = (dir: string) => {
    const run = join(dir, 'run.yaml');
    writeFileSync(run, readFileSync(run, 'utf8').replace(/^steps:\n(?: {2}- .*\n)+/m, 'steps: []\n'));
    for (const step of experiment.steps) rmSync(join(dir, `${step.id}.yaml`), { force: true });
  };
  withCopy(noSteps, (dir) => {
    assert.deepEqual(
      problemsOf(() => loadSnapshots(dir)),
      [
        `${join(dir, 'run.yaml')}: field "steps": expected at least one step id; only a verify run (driver existing) whose cluster refused its node agents has none`,
      ],
    );
  });
  withCopy(
    (dir) => {
      noSteps(dir);
      replaceIn(join(dir, 'run.yaml'), /^driver: lab$/m, 'driver: existing');
      // What only the lab records goes; the agents' image and the CNI configuration, read through an agent, are not there.
      replaceIn(join(dir, 'run.yaml'), /^ {2}kube-apiserver: .*\n/m, '');
      replaceIn(join(dir, 'run.yaml'), /^ {2}etcd: .*\n/m, '');
    },
    (dir) => assert.deepEqual(loadSnapshots(dir).run.steps, []),
  );
});

test('a YAML file beside run.yaml that run.yaml does not list is a leftover, and is named', () => {
  withCopy(
    (dir) => cpSync(join(dir, 'health-worker.yaml'), join(dir, 'health-old.yaml')),
    (dir) => {
      assert.deepEqual(
        problemsOf(() => loadSnapshots(dir)),
        [`${join(dir, 'health-old.yaml')}: not listed in ${join(dir, 'run.yaml')} field "steps"; expected only the listed steps' files beside run.yaml`],
      );
    },
  );
});

test('parseStepSnapshot is pure: text in, validated step out', () => {
  const text = readFileSync(join(SNAPSHOT_SAMPLE_DIR, 'local-via-worker2.yaml'), 'utf8');
  const step = parseStepSnapshot(text, 'x/local-via-worker2.yaml', { id: 'local-via-worker2', nodes: ['control-plane'] });
  assert.equal(step.exitCode, 28);
  assert.throws(
    () => parseStepSnapshot(text, 'x/y.yaml', { id: 'y', nodes: ['control-plane'] }),
    /^EvidenceError: x\/y\.yaml: field "id": expected "y" \(the file's name\), got "local-via-worker2"$/,
  );
});
