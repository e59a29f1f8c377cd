// A step id becomes a file name (<id>.yaml beside run.yaml): one schema rule
// (src/evidence/schema.ts, stepIdSchema) holds for the article's definition, the
// run's step list and each step's file. An id that would lead out of the run's
// folder is refused by the loader (so by the dry run and the capture, before
// anything runs) in one line naming the file and the field, and the snapshot
// writer refuses any name that is not a file of its own folder.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { articleFrom } from '../../src/authoring/load.ts';
import { inside, openStaging, SnapshotShapeError } from '../../src/capture/snapshots/snapshot-writer.ts';
import { runSchema, stepIdSchema, stepSchema } from '../../src/evidence/schema.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const SLUG = '074-external-traffic-policy';
const FILE = `content/articles/${SLUG}/article.ts`;
const exported = (await import(join(root, FILE))).default as { experiment: { steps: Array<{ id: string }> } };

const withStepId = (index: number, id: string) => ({
  ...exported,
  experiment: { ...exported.experiment, steps: exported.experiment.steps.map((s, i) => (i === index ? { ...s, id } : s)) },
});

test("an article whose step id would name a file outside the run's folder is refused by the loader, one line naming the file and the field", () => {
  for (const id of ['../../../outside', 'a/b', '..', '.hidden', 'x'.repeat(250), 'Upper', 'a\nb']) {
    assert.throws(
      () => articleFrom(withStepId(2, id), SLUG),
      (error: Error) => {
        const lines = error.message.split('\n');
        const line = lines.find((l) => l.includes('"experiment.steps.2.id"'));
        assert.ok(line, `${JSON.stringify(id).slice(0, 40)}: ${error.message.slice(0, 300)}`);
        assert.match(
          line,
          new RegExp(
            `^${FILE}: field "experiment\\.steps\\.2\\.id": expected lowercase letters, digits and dashes, starting with a letter or digit, at most 64 characters \\(it names the step's file\\), got "`,
          ),
        );
        assert.ok(!line.includes('\n') && line.length < 400);
        return true;
      },
    );
  }
  // The committed ids all hold to the rule.
  assert.doesNotThrow(() => articleFrom(exported, SLUG));
});

test('the same rule holds for run.yaml and the step files: one schema, not three', () => {
  for (const id of ['../x', 'a/b', '', '-lead']) {
    assert.equal(stepIdSchema.safeParse(id).success, false, id);
    assert.equal(stepSchema.shape.id.safeParse(id).success, false, id);
    assert.equal(runSchema.shape.steps.safeParse([id]).success, false, id);
  }
  assert.equal(stepIdSchema.safeParse('cluster-via-worker2').success, true);
});

test('the snapshot writer refuses a step whose id leads out of its staging folder, in one line, and writes nothing outside', async () => {
  const tmp = mkdtempSync(join(tmpdir(), 'shice-step-id-'));
  try {
    const target = join(tmp, 'article', 'snapshots');
    const staging = await openStaging(target, 'run-1');
    const step = {
      id: '../../escaped',
      kind: 'exec',
      node: 'host',
      title: 't',
      command: ['true'],
      argv: ['true'],
      exitCode: 0,
      startedAt: '2026-12-06T00:00:00.000Z',
      durationMs: 1,
      stdout: '',
      stderr: '',
    };
    await assert.rejects(
      staging.writeStep(step as never),
      (error: Error) =>
        error instanceof SnapshotShapeError &&
        /^\.snapshots\.staging-run-1\/\.\.\/\.\.\/escaped\.yaml: field "id": expected lowercase letters, digits and dashes/.test(error.message) &&
        !error.message.includes('\n') &&
        !error.message.includes('"code"'),
    );
    await staging.discard();
    assert.deepEqual(readdirSync(tmp), ['article']);
    assert.deepEqual(readdirSync(join(tmp, 'article')), []);
    assert.equal(existsSync(join(tmp, 'escaped.yaml')), false);
    // Whatever the schema allowed, the writer's own check: a name is a file of its folder or nothing.
    assert.throws(() => inside(tmp, '../x.yaml'), /"\.\.\/x\.yaml": refused as a snapshot's file name: it would not be a file of /);
    assert.throws(() => inside(tmp, 'a/b.yaml'), SnapshotShapeError);
    assert.equal(inside(tmp, 'run.yaml'), join(tmp, 'run.yaml'));
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
