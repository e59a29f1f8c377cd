// Article 074, the headline, captured on a real kind cluster as a user captures
// it: the CLI with the kind driver, both kube-proxy modes, every core busy while
// the steps run, on the engine and images kind:prepare makes (built here, without
// any registry, where none answers). The kind suite takes this one reference
// experiment whatever the number of articles (docs/testing.md says what covers
// the others).
// Then: the article's observations hold in each mode, and the last cluster is
// kept (--keep). A node container killed in the middle of a capture that reuses
// it (--reuse): one line naming it, the previous snapshots byte for byte, and
// the host as it was before the first cluster was created (containers,
// networks, kubeconfig, processes, root-namespace links, addresses, routes,
// rules and kernel settings): what keep, reuse and a failed run's delete do
// together. The killed run costs no cluster of its own. Last,
// `kind:prepare -- --stop` leaves forwarding and the routing tables as shice
// first found this machine (the suite turns forwarding back off first where an
// earlier run of an older shice left it on).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { execa } from 'execa';
import { evidenceFromDisk } from '../../src/evidence/runs/from-disk.ts';
import { loadArticle } from '../../src/authoring/load.ts';
import { readMachineBaseline, readHostNetwork } from '../../src/capture/kind/engine/engine.ts';
import { FORWARDING_SYSCTLS, routeChanges, sysctlChanges } from '../../src/capture/kind/engine/host-state.ts';
import { formatBrokenClaims } from '../../src/evidence/claims.ts';
import {
  answeringEngine,
  dockerObjects,
  forwardingAsFirstFound,
  engineProcesses,
  kindStateFiles,
  kindTest,
  prepareKind,
  ROOT,
  rootNamespace,
  runCaptureCli,
  stopEngineCli,
  stopKindIfStarted,
  unavailable,
  type KindHost,
} from './support.ts';
import { HEADLINE_RELEASE } from '../../src/experiment/kubernetes.ts';
import { busyWhileSteps } from '../support/busy.ts';

const SLUG = '074-external-traffic-policy';
const onCI = process.env.CI === 'true';
let host: KindHost | null = null;
let hostBefore: { root: Record<string, string[]>; processes: string[] } | null = null;
/** The host before the headline test created the cluster it kept, for the run that deletes it. */
let beforeKept: Awaited<ReturnType<typeof leftovers>> | null = null;
const out = mkdtempSync(join(tmpdir(), 'shice-kind-'));

before(async () => {
  if (unavailable !== null) return;
  // shice's own engine, left running by a user, is stopped first: the suite proves what starting and stopping it does.
  const running = await answeringEngine();
  if (running?.own) for (const line of (await stopEngineCli()).stdout.trim().split('\n')) process.stdout.write(`# ${line}\n`);
  if ((await answeringEngine()) === null) for (const line of forwardingAsFirstFound(onCI)) process.stdout.write(`# set ${line}\n`);
  // Read before any engine starts: whoever starts one here stops it, and the host is as it was.
  hostBefore = { root: await rootNamespace(), processes: engineProcesses() };
  host = await prepareKind((line) => process.stdout.write(`# ${line}\n`));
});

/**
 * The cluster the headline test kept, where the killed-node run did not get to delete it (it failed first, or was
 * filtered out): deleted as a user deletes one, by a run that reuses it without --keep, which puts the host back too.
 */
async function deleteKeptCluster(): Promise<void> {
  if (host === null || !kindStateFiles().some((name) => name.endsWith('.owner.json'))) return;
  const run = await runCaptureCli([SLUG, '--k8s', HEADLINE_RELEASE.minor, '--out', join(out, 'left'), '--variant', 'nftables', '--reuse'], host.env, () => {});
  process.stdout.write(`# the kept cluster, deleted by a run that reuses it: exit ${run.code}\n`);
}

after(async () => {
  await deleteKeptCluster();
  rmSync(out, { recursive: true, force: true });
  // Only when the last test did not get to stop it (a failure before it).
  await stopKindIfStarted(host);
});

/** What a capture may change on the host: nothing, once it has ended. */
async function leftovers() {
  return { docker: await dockerObjects(host!.env), root: await rootNamespace(), state: kindStateFiles(), processes: engineProcesses() };
}

function folderHash(dir: string): string {
  const hash = createHash('sha256');
  for (const name of readdirSync(dir).sort()) hash.update(name).update(readFileSync(join(dir, name)));
  return hash.digest('hex');
}

kindTest(
  "article 074 on a real kind cluster, both modes, with a busy loop on every core while the steps run: the article's observations hold, the report sees no change in behaviour, and --keep keeps the last cluster",
  async (t) => {
    const beforeRun = await leftovers();
    assert.deepEqual(beforeRun.state, [], 'no kubeconfig or cluster state of an earlier capture to begin with');
    const started = performance.now();
    // A shared runner: every core busy with something else while each cluster's steps are measured.
    const busy = busyWhileSteps();
    const run = await runCaptureCli([SLUG, '--k8s', HEADLINE_RELEASE.minor, '--out', out, '--variant', 'iptables,nftables', '--keep'], host!.env, (line) => {
      busy.onLine(line);
      t.diagnostic(line);
    });
    const busyRuns = await busy.stop();
    // The cluster it kept is the killed-node test's to run on, whatever this test's assertions find below:
    // that test's "nothing left" is then measured against the host before this cluster, not with it.
    if (kindStateFiles().some((name) => name.endsWith('.owner.json'))) beforeKept = beforeRun;
    t.diagnostic(`capture of both variants on kind, every core busy during the steps: ${Math.round((performance.now() - started) / 1000)} s`);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(busyRuns, 2, 'both runs ran their steps beside the busy loops');
    // Each variant's report against the committed run of the same software: addresses handed out in
    // another order, new ports and requests slowed by the load (timing) are no change; on a machine
    // with other versions, the environment changed.
    assert.deepEqual(
      (run.stderr.match(/^what changed: .*$/gm) ?? []).map((line) => /^what changed: (no change in behaviour|the environment changed) /.test(line)),
      [true, true],
      run.stderr,
    );

    const defs = await loadArticle(ROOT, SLUG);
    for (const [variant, folder] of [
      ['iptables', SLUG],
      ['nftables', `${SLUG}.nftables`],
    ] as const) {
      const evidence = evidenceFromDisk(SLUG, join(out, folder), defs, { variants: false, variant });
      const { run: snapshot } = evidence.snapshots;
      const fact = (id: string) => {
        const found = evidence.facts.get(id);
        assert.ok(found, `${variant}: fact ${id} derives`);
        return found.value;
      };
      assert.equal(snapshot.driver, 'kind');
      assert.equal(snapshot.versions['kube-proxy-mode'], variant, "kube-proxy's own /proxyMode answer");
      assert.match(snapshot.versions.kubernetes ?? '', /^v1\.37\.\d+$/);
      assert.equal(snapshot.versions.kubelet, snapshot.versions.kubernetes, 'kubelet on the nodes is the same release as the API server');
      if (/built on this machine/.test(snapshot.versions['node-image-source'] ?? '')) {
        assert.match(snapshot.versions.cni ?? '', /kindnetd stand-in/, 'a local node image runs with the stand-in, and says so');
        assert.match(snapshot.versions['image-substitutes'] ?? '', /^nginx:1\.27-alpine -> shice\/nginx-light:/);
        assert.ok(
          snapshot.environment.limits.some((l) => /kindnetd did not run/.test(l.en)),
          'the page will say kindnetd did not run',
        );
      }
      // The article's observations, each read from what the real tools printed.
      assert.equal(fact('cluster-via-worker.client'), fact('node.worker.podGateway'), 'Cluster, via the node with the backend: the pod gateway');
      assert.equal(fact('cluster-via-worker2.client'), fact('node.worker2.ip'), 'Cluster, via the other node: SNAT to that node');
      assert.equal(fact('local-via-worker.client'), fact('node.control-plane.ip'), 'Local: the client address survives');
      assert.equal(fact('local-via-worker2.rc'), '28', "Local, via the node without the backend: dropped, curl's timeout");
      assert.deepEqual([fact('health-worker.status'), fact('health-worker2.status'), fact('health-worker-after-delete.status')], ['200', '503', '503']);
      if (variant === 'iptables') assert.equal(fact('iptables-worker2.dropPort'), fact('service.s-local.nodePort'));
      assert.deepEqual(formatBrokenClaims(evidence.claims), [], `${variant}: every claim of the article holds`);
    }

    // The iptables cluster was deleted for the nftables one (a kept cluster is recreated without --reuse); that one is kept.
    assert.match(run.stderr, /keeping kind cluster "kx-main"/);
    const kept = await leftovers();
    assert.equal(kept.docker.containers!.length - beforeRun.docker.containers!.length, 3, 'the three node containers of the kept cluster');
    assert.ok(
      kept.state.some((name) => name.endsWith('.owner.json')),
      "the kept cluster's ownership marker",
    );
  },
);

kindTest(
  'a node container killed during the steps of a run on the kept cluster: one line naming it, the previous snapshots untouched, the host as before the cluster',
  async (t) => {
    // Previous snapshots to protect: a copy of the article's committed ones.
    const target = join(out, 'killed');
    const folder = join(target, `${SLUG}.nftables`);
    cpSync(join(ROOT, 'content/articles', SLUG, 'snapshots.nftables'), folder, { recursive: true });
    const hashBefore = folderHash(folder);
    // Run alone (the headline test skipped or filtered out), it creates its own cluster.
    const beforeRun = beforeKept ?? (await leftovers());
    const kill: { done: Promise<unknown> | null } = { done: null };
    const run = await runCaptureCli([SLUG, '--k8s', HEADLINE_RELEASE.minor, '--out', target, '--variant', 'nftables', '--reuse'], host!.env, (line) => {
      t.diagnostic(line);
      // The second step has run: worker2 goes away while the steps are under way.
      if (kill.done === null && /^\[ 2\/\d+\]/.test(line)) kill.done = execa('docker', ['kill', 'kx-main-worker2'], { env: host!.env });
    });
    assert.ok(kill.done !== null, 'the capture reached its steps');
    await kill.done;
    assert.equal(run.code, 1, `a run whose node died fails: ${run.stderr}`);
    const errors = run.stderr.split('\n').filter((line) => line.startsWith('capture:'));
    assert.equal(errors.length, 1, run.stderr);
    assert.match(errors[0]!, /kx-main-worker2/, 'the line names the node container');
    assert.match(errors[0]!, /snapshots were left as they were/);
    assert.equal(folderHash(folder), hashBefore, 'the previous snapshots, byte for byte');
    if (beforeKept !== null) assert.match(run.stderr, /reusing kind cluster "kx-main"/);
    assert.deepEqual(await leftovers(), beforeRun, 'nothing of either cluster is left: no container, network, kubeconfig, process or root-namespace rule');
  },
);

kindTest('kind:prepare -- --stop: the engine and every process of it gone, forwarding and the routing tables as shice first found this machine', async (t) => {
  await deleteKeptCluster();
  if (!host!.startedEngine) {
    // The host's own engine (Docker Desktop, a system dockerd): never stopped by shice, and shice changed nothing of the host.
    assert.deepEqual(await rootNamespace(), hostBefore!.root, "the host's root namespace is as it was before the suite");
    return;
  }
  const stop = await stopEngineCli();
  t.diagnostic(stop.stdout);
  assert.equal(stop.code, 0, stop.stderr);
  assert.doesNotMatch(stop.stdout, /could not|differ/, 'everything written back, no route left');
  host = null;
  assert.deepEqual(engineProcesses(), hostBefore!.processes, 'the engine the suite started is stopped, with every process of it');
  assert.deepEqual(await rootNamespace(), hostBefore!.root, "the host's root namespace is as it was before the engine started");
  const baseline = readMachineBaseline();
  assert.ok(baseline, 'the engine recorded this machine before it first started there');
  const now = await readHostNetwork();
  for (const name of FORWARDING_SYSCTLS) {
    assert.equal(now.sysctls[name], baseline.sysctls[name], `${name} as before shice's engine first started here`);
    if (onCI) assert.equal(now.sysctls[name], '0', `${name}: off, as on a fresh machine`);
  }
  assert.deepEqual(sysctlChanges(baseline.sysctls, now.sysctls), [], 'every kernel setting as before the first start');
  assert.deepEqual(routeChanges(baseline.routes, now.routes), { added: [], removed: [] }, 'IPv4 and IPv6 routing tables, local table included');
});
