// `--clean`: recovers captures and lab runs that were killed; captures nothing.
import { exitWith } from './edge.ts';
import { cleanKilledRuns } from './providers.ts';

export async function clean(): Promise<void> {
  const { done, failed } = await cleanKilledRuns();
  if (done.length) process.stdout.write(`recovered ${done.length}: ${done.join('; ')}\n`);
  // The lines above said why; the records stay, so a later --clean can finish the job.
  if (failed.length) exitWith(1);
  if (!done.length) process.stdout.write('nothing of killed captures or lab runs was left\n');
}
