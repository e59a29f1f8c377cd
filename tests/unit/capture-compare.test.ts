// `npm run capture -- --compare DIR` on copies of committed runs: a run is
// compared only with the committed run of the environment and release its
// run.yaml names (a lab run against the kind snapshots is refused in one line
// naming the file and the field), and every name read from the filesystem is
// shown on one line whatever it holds (a line feed, ESC).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url)).replace(/\/$/, '');
const S074 = '074-external-traffic-policy';
const committed = (folder: string) => join(root, 'content/articles', S074, folder);

function compare(...args: string[]) {
  const result = spawnSync(process.execPath, ['scripts/capture.ts', S074, ...args], { cwd: root, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

test('a lab run folder given without --driver lab is refused, naming its run.yaml and field "driver"; with --driver lab it is compared with the lab run', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'shice-compare-'));
  try {
    const run = join(tmp, 'run');
    cpSync(committed('snapshots.lab'), run, { recursive: true });
    const refused = compare('--compare', run);
    assert.equal(refused.code, 2, refused.stderr + refused.stdout);
    assert.equal(refused.stdout, '');
    const lines = refused.stderr.trimEnd().split('\n');
    assert.equal(lines.length, 1, refused.stderr);
    assert.match(
      lines[0]!,
      /^capture: --compare \S+\/run: \S*run\/run\.yaml: field "driver": names "lab", but the comparison is with the kind snapshots; expected a kind run, or --driver lab$/,
    );
    const lab = compare('--compare', run, '--driver', 'lab');
    assert.equal(lab.code, 0, lab.stderr);
    assert.match(lab.stdout, /^074-external-traffic-policy \(lab, iptables\): committed snapshots vs \S*run\n/);
    assert.doesNotMatch(lab.stdout, /behaviour changed/);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('a folder whose name holds a line feed and ESC is shown quoted: no line of its own, nothing a terminal acts on', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'shice-compare-'));
  try {
    const dir = join(tmp, 'runs\nforged line \u001b[31m');
    mkdirSync(dir);
    cpSync(committed('snapshots'), join(dir, S074), { recursive: true });
    const result = compare('--compare', dir);
    assert.equal(result.code, 0, result.stderr);
    assert.ok(!result.stdout.includes('\u001b') && !result.stderr.includes('\u001b'), JSON.stringify(result.stdout.slice(0, 300)));
    const headings = result.stdout.split('\n').filter((l) => l.includes('runs'));
    assert.ok(headings.length >= 2, result.stdout);
    for (const line of headings)
      assert.match(
        line,
        /^074-external-traffic-policy \(.*\): (committed snapshots vs|no run in) ".*runs\\nforged line \\u001b\[31m\/074-external-traffic-policy(\.[a-z0-9.]+)?"$/,
      );
    assert.ok(!result.stdout.split('\n').some((l) => l.startsWith('forged line')));
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
