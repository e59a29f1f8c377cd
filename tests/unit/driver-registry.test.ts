// One registry of drivers: every list of them reads it, so a driver is added in one place
// (its folder, and one entry in each half of the registry) and nowhere else.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { DRIVER_NAMES, DRIVERS } from '../../src/experiment/drivers.ts';
import { ENVIRONMENTS } from '../../src/experiment/types.ts';
import { CAPTURE_DRIVER_NAMES, DRIVER_OF, environmentMeasuredBy } from '../../src/experiment/environments.ts';
import { runSchema } from '../../src/evidence/schema.ts';
import { CAPTURE_DRIVERS, PROVIDER_LEFTOVERS } from '../../src/capture/session/drivers.ts';
import { parseCaptureArgs, USAGE } from '../../src/capture/session/cli-args.ts';
import { driverTable } from '../../scripts/lib/driver-table.ts';

test('the snapshot schema and the capture name the registry’s drivers; each environment is measured by one of them, and verify’s by none', () => {
  assert.deepEqual(runSchema.shape.driver.options, DRIVER_NAMES);
  for (const environment of ENVIRONMENTS) assert.ok(DRIVER_NAMES.includes(DRIVER_OF[environment]), `${environment} is measured by a registered driver`);
  assert.deepEqual(CAPTURE_DRIVER_NAMES, ['kind', 'lab']);
  assert.equal(environmentMeasuredBy('existing'), null);
  assert.equal(environmentMeasuredBy('kind'), 'kind');
  assert.deepEqual(Object.keys(CAPTURE_DRIVERS).sort(), [...DRIVER_NAMES].sort());
  // Recovery asks every driver for what its killed runs left.
  assert.deepEqual(PROVIDER_LEFTOVERS.map((l) => l.kind).sort(), [...DRIVER_NAMES].sort());
});

test('the capture offers each driver that measures an environment and each of its flags, and refuses a flag with another driver', () => {
  assert.throws(() => parseCaptureArgs(['--driver', 'existing']), /--driver must be kind or lab, got "existing"/);
  for (const name of CAPTURE_DRIVER_NAMES) {
    assert.equal(parseCaptureArgs(['--driver', name]).driver, name);
    assert.match(USAGE, new RegExp(`^ {24}${name}: +${DRIVERS[name].summary.split(' ')[0]}`, 'm'));
    for (const flag of DRIVERS[name].flags) {
      assert.match(USAGE, new RegExp(`^  --${flag.name}\\b.*\\(${name}\\) `, 'm'));
      const argv = flag.type === 'boolean' ? [`--${flag.name}`] : [`--${flag.name}`, 'x'];
      assert.ok(flag.name in parseCaptureArgs(['--driver', name, ...argv]).driverFlags);
      for (const other of CAPTURE_DRIVER_NAMES.filter((n) => n !== name))
        assert.throws(() => parseCaptureArgs(['--driver', other, ...argv]), new RegExp(`--${flag.name} works with --driver ${name} only`));
    }
  }
});

test('docs/capture-engine.md’s table of drivers is the registry’s', () => {
  const page = readFileSync(new URL('../../docs/capture-engine.md', import.meta.url), 'utf8');
  assert.ok(page.includes(driverTable()), `docs/capture-engine.md should hold this table:\n${driverTable()}`);
});
