// What a killed verify run left: its namespace, found by its record (the
// kubeconfig, context and namespace it wrote before creating anything), and
// deleted only when the namespace still carries the run's own label.
import type { ProviderLeftovers } from '../provider/node-provider.ts';
import { forgetRecord, type ExistingRunRecord } from '../recovery/run-registry.ts';
import { deleteOwnNamespace, existingTarget } from './provider.ts';

export const existingLeftovers: ProviderLeftovers = {
  kind: 'existing',
  async remove(record) {
    const run = record as ExistingRunRecord;
    const said = await deleteOwnNamespace(existingTarget(run), run.namespace, run.runId, { env: process.env, cwd: process.cwd() });
    forgetRecord('existing', run.runId);
    if (said.endsWith('already gone')) return [];
    return [said.startsWith('left ') ? said : `${said} (context ${run.context})`];
  },
  // A reader's clusters are theirs: only what a record names is ever looked at.
  unrecorded: async () => [],
};
