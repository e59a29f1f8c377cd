// What a killed verify run left: its namespace, found by its record (the
// kubeconfig, context and namespace it wrote before creating anything), and
// deleted only when the namespace still carries the run's own label.
import type { ProviderLeftovers } from '../provider/node-provider.ts';
import { DriverError } from '../provider/node-provider.ts';
import { kubectl } from '../kubectl/commands.ts';
import { firstLine, runProcess, text } from '../machine/process.ts';
import { forgetRecord, type ExistingRunRecord } from '../recovery/run-registry.ts';
import { VERIFY_RUN_LABEL } from './agent.ts';
import { deleteNamespace, existingTarget } from './provider.ts';

const API_MS = 30_000;

export const existingLeftovers: ProviderLeftovers = {
  kind: 'existing',
  async remove(record) {
    const run = record as ExistingRunRecord;
    const target = existingTarget(run);
    const options = { env: process.env, cwd: process.cwd() };
    const read = await runProcess(kubectl(target, 'get', 'namespace', run.namespace, '--ignore-not-found', '-o', 'json'), { timeoutMs: API_MS, ...options });
    if (read.exitCode !== 0)
      throw new DriverError(
        `could not read namespace ${run.namespace} through context ${run.context}: ${firstLine(text(read.stderr)) || `kubectl exited ${read.exitCode}`}`,
      );
    const body = text(read.stdout).trim();
    if (body !== '') {
      const labels = (JSON.parse(body) as { metadata?: { labels?: Record<string, string> } }).metadata?.labels ?? {};
      if (labels[VERIFY_RUN_LABEL] !== run.runId) {
        forgetRecord('existing', run.runId);
        return [`left namespace ${run.namespace}: it does not carry ${VERIFY_RUN_LABEL}=${run.runId}, so the run did not create it`];
      }
      await deleteNamespace(target, run.namespace, options);
    }
    forgetRecord('existing', run.runId);
    return body === '' ? [] : [`namespace ${run.namespace} (context ${run.context})`];
  },
  // A reader's clusters are theirs: only what a record names is ever looked at.
  unrecorded: async () => [],
};
