import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULTS, parseBenchArgs, UsageError } from '../../bench/cli-args.ts';
import { GROUPS } from '../../bench/figures.ts';

test('no arguments: every group, the sizes and counts of the brief', () => {
  const args = parseBenchArgs([]);
  assert.deepEqual(args.groups, [...GROUPS]);
  assert.deepEqual(args.sizes, [1, 10, 40]);
  assert.equal(args.bindingArticles, 50);
  assert.equal(args.buildTimeoutSeconds, DEFAULTS.buildTimeoutSeconds);
  assert.equal(args.article, '074-external-traffic-policy');
  assert.equal(args.skipLab, false);
  assert.equal(args.skipKind, false);
  assert.equal(args.skipTests, false);
  assert.equal(parseBenchArgs(['--skip-tests']).skipTests, true);
  assert.equal(args.compare, null);
});

test('options are read; --only keeps the run order whatever the order asked', () => {
  const args = parseBenchArgs(['--skip-lab', '--only', 'lab,weight', '--sizes', '200,1,50,50', '--binding-articles', '10', '--build-timeout', '120']);
  assert.equal(args.skipLab, true);
  assert.deepEqual(args.groups, ['weight', 'lab']);
  assert.deepEqual(args.sizes, [1, 50, 200]);
  assert.equal(args.bindingArticles, 10);
  assert.equal(args.buildTimeoutSeconds, 120);
});

test('--compare takes exactly two files', () => {
  assert.deepEqual(parseBenchArgs(['--compare', 'a.json', 'b.json']).compare, ['a.json', 'b.json']);
  assert.throws(() => parseBenchArgs(['--compare', 'a.json']), /--compare needs two result files \(OLD NEW\), got 1/);
  assert.throws(() => parseBenchArgs(['a.json']), /unexpected argument "a\.json"/);
});

test('every mistake is one line naming the option and what it expected', () => {
  const cases: Array<[string[], RegExp]> = [
    [['--only', 'speed'], /--only: expected groups from weight, e2e, binding, growth, merge, lab, kind, tests, got "speed"/],
    [['--sizes', '1,50'], /--sizes: expected at least 3 different sizes/],
    [['--sizes', '1,x,3'], /--sizes: expected a whole number >= 1, got "x"/],
    [['--article', '076-a\nbench: done'], /^--article: expected a slug \(lowercase letters and digits joined by dashes\), got "076-a\\nbench: done"$/],
    [['--binding-articles', '0'], /--binding-articles: expected a whole number >= 1, got "0"/],
    [['--build-timeout', '5'], /--build-timeout: expected a whole number >= 10, got "5"/],
    [['--article', '../etc'], /--article: expected a slug/],
    [['--fast'], /Unknown option '--fast'.*\(see --help\)/],
  ];
  for (const [argv, message] of cases) {
    assert.throws(
      () => parseBenchArgs(argv),
      (error: unknown) => error instanceof UsageError && message.test(error.message),
      argv.join(' '),
    );
  }
});
