// docs/capture-engine.md's table of drivers, rendered from the registry
// (src/experiment/drivers.ts): a unit test holds the page to it.
import { DRIVER_NAMES, DRIVERS, type DriverFlag } from '../../src/experiment/drivers.ts';

const cell = (text: string) => text.replaceAll('|', '\\|');

export function driverTable(): string {
  const rows = DRIVER_NAMES.map((name) => {
    const info = DRIVERS[name];
    const flags = (info.flags as readonly DriverFlag[]).map((f) => `\`--${f.name}${f.value ? ` ${f.value}` : ''}\``).join(', ') || '–';
    return `| \`${name}\` | ${cell(info.summary)} | ${cell(info.needs)} | ${flags} | \`${info.versions.join('`, `')}\` |`;
  });
  return ['| driver | what runs the experiment | needs | its own flags | versions only it records |', '| --- | --- | --- | --- | --- |', ...rows].join('\n');
}
