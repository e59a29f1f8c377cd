// npm run verify as a reader runs it, on a kind cluster the capture did not create
// (the kind driver's nodes under another name, with a kubeconfig of their own):
// 074's claims of the cluster's mode all hold, the run's namespace is gone after
// it and nothing else in the cluster changed (every object listed before and
// after). Bad input is one line and creates nothing. A cluster whose admission
// refuses privileged pods gets every claim that rests on a step "not checked",
// saying why, still checks the claim that rests on the API's objects alone, and
// keeps nothing of the run; one that refuses the article's own pods gets every
// claim "not checked", quoting the refusal. Pod Security itself is asked, by dry
// runs, what it says to the agents and to 074's pods.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before } from 'node:test';
import { execa } from 'execa';
import { readImagesRecord } from '../../src/capture/kind/image/local-images.ts';
import { agentObject } from '../../src/capture/existing/agent.ts';
import { registryDir } from '../../src/capture/recovery/run-registry.ts';
import {
  clusterObjects,
  clusterOfItsOwn,
  kindTest,
  prepareKind,
  runScript,
  stopKindIfStarted,
  unavailable,
  type ClusterOfItsOwn,
  type KindHost,
} from './support.ts';

const SLUG = '074-external-traffic-policy';
const ARTICLES = fileURLToPath(new URL('../../content/articles/', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'shice-verify-'));
let host: KindHost | null = null;
let cluster: ClusterOfItsOwn | null = null;

before(async () => {
  if (unavailable !== null) return;
  host = await prepareKind((line) => process.stdout.write(`# ${line}\n`));
  const started = performance.now();
  cluster = await clusterOfItsOwn(host, 'kx-reader', join(work, 'state'), (line) => process.stdout.write(`# ${line}\n`));
  process.stdout.write(`# a reader's kind cluster up in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
});

after(async () => {
  await cluster?.down();
  rmSync(work, { recursive: true, force: true });
  await stopKindIfStarted(host);
});

const kubectl = (...args: string[]) => execa('kubectl', ['--kubeconfig', cluster!.kubeconfig, ...args], { env: host!.env });
const verifyNamespaces = async () => (await kubectl('get', 'namespaces', '-o', 'name')).stdout.split('\n').filter((n) => n.includes('shice-verify'));
const verifyRecords = () => (existsSync(registryDir()) ? readdirSync(registryDir()).filter((f) => f.endsWith('.existing.json')) : []);
/** The local build kind:prepare preloaded into the nodes: the manifests' stand-in, and the agents' image (Debian's util-linux has nsenter). */
const localImage = () => readImagesRecord()!.backends['debian-nginx-light']!.name;
const verify = (args: string[]) =>
  runScript('scripts/verify.ts', [SLUG, '--kubeconfig', cluster!.kubeconfig, '--stand-in-images', '--agent-image', localImage(), ...args], host!.env);

/**
 * The cluster's objects once it has settled: a cluster just made still changes its own Nodes (the node lifecycle
 * controller lifts its not-ready taints, controllers annotate them) after they are Ready. Awaited as every node Ready
 * and untainted, and two listings a second apart that agree; bounded.
 */
async function settledObjects(): Promise<string[]> {
  const deadline = performance.now() + 120_000;
  let last = await clusterObjects(cluster!.kubeconfig, host!.env);
  for (;;) {
    assert.ok(performance.now() < deadline, 'the cluster did not settle within 120 s');
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const now = await clusterObjects(cluster!.kubeconfig, host!.env);
    // Ready, and the node lifecycle controller has lifted the taints it puts on a node that is not (yet).
    const nodes = JSON.parse((await kubectl('get', 'nodes', '-o', 'json')).stdout) as {
      items: Array<{ spec: { taints?: Array<{ key: string }> }; status: { conditions: Array<{ type: string; status: string }> } }>;
    };
    const ready = nodes.items.every(
      (n) =>
        n.status.conditions.some((c) => c.type === 'Ready' && c.status === 'True') &&
        !(n.spec.taints ?? []).some((t) => t.key === 'node.kubernetes.io/not-ready' || t.key === 'node.kubernetes.io/unreachable'),
    );
    if (ready && JSON.stringify(now) === JSON.stringify(last)) return now;
    last = now;
  }
}

kindTest("074 verified on a reader's kind cluster: every claim of its mode holds; its namespace is gone and nothing else changed", async () => {
  const before = await settledObjects();
  const started = performance.now();
  const run = await verify(['--out', join(work, 'run')]);
  const seconds = (performance.now() - started) / 1000;
  assert.equal(run.code, 0, run.stderr);
  process.stdout.write(`# verify took ${seconds.toFixed(1)} s\n`);
  assert.match(
    run.stderr,
    /^verify: nodes control-plane=kx-reader-control-plane,worker=kx-reader-worker,worker2=kx-reader-worker2 \(chosen; --nodes names others\); namespace shice-verify-\S+$/m,
  );
  assert.match(
    run.stdout,
    /^074-external-traffic-policy on context kind-kx-reader \(Kubernetes v1\.37\.\d+, kube-proxy iptables, CNI 10-kindnet\.conflist: ptp, portmap\): 9 held, 0 broken, 4 not checked$/m,
  );
  assert.match(run.stdout, /^ {2}not checked {2}nft-drops-without-backend /m);
  assert.equal(readdirSync(join(work, 'run', 'run')).filter((f) => f.endsWith('.yaml') && f !== 'run.yaml').length, 13, 'every step kept its raw output');
  assert.deepEqual(await verifyNamespaces(), []);
  assert.deepEqual(verifyRecords(), [], 'the run forgot its record once its namespace was gone');
  assert.deepEqual(await clusterObjects(cluster!.kubeconfig, host!.env), before, 'no object of the cluster was created, changed or left');
});

kindTest(
  'bad input: a kubeconfig that does not parse, a context it lacks, a cluster that does not answer, a node it lacks, an --out in the articles or not empty; one line each, nothing created',
  async () => {
    const broken = join(work, 'broken.kubeconfig');
    writeFileSync(broken, 'clusters: [\n');
    const silent = join(work, 'silent.kubeconfig');
    // A cluster at an address where nothing listens.
    writeFileSync(
      silent,
      'apiVersion: v1\nkind: Config\nclusters: [{name: s, cluster: {server: "https://127.0.0.1:9"}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: s, context: {cluster: s, user: u}}]\ncurrent-context: s\n',
    );
    const cases: Array<[string[], RegExp]> = [
      [[SLUG, '--kubeconfig', broken], /^verify: --kubeconfig \S+broken\.kubeconfig: kubectl cannot read it \(error: .*broken\.kubeconfig.*\)$/],
      [
        [SLUG, '--kubeconfig', cluster!.kubeconfig, '--context', 'kind-elsewhere'],
        /^verify: --context kind-elsewhere: \S+ has no such context \(it has: kind-kx-reader\)$/,
      ],
      [[SLUG, '--kubeconfig', silent], /^verify: context s: the cluster does not answer \(.*127\.0\.0\.1:9.*\)$/],
      [
        [SLUG, '--kubeconfig', cluster!.kubeconfig, '--nodes', 'control-plane=kx-reader-control-plane,worker=kx-reader-worker,worker2=kx-reader-worker3'],
        /^verify: --nodes: worker2=kx-reader-worker3: the cluster has no node kx-reader-worker3 \(it has /,
      ],
      // Where the run would write: never into the articles, never over a folder of the reader's.
      [[SLUG, '--kubeconfig', cluster!.kubeconfig, '--out', 'content/articles/mine'], /^verify: --out content\/articles\/mine: is inside the articles folder/],
      [[SLUG, '--kubeconfig', cluster!.kubeconfig, '--out', work], /^verify: --out \S+: not empty; verify writes into a new or empty folder$/],
    ];
    for (const [args, line] of cases) {
      const run = await runScript('scripts/verify.ts', args, host!.env);
      assert.equal(run.code, 2, run.stderr);
      assert.equal(run.stderr.trim().split('\n').length, 1, `one line: ${run.stderr}`);
      assert.match(run.stderr.trim(), line);
    }
    // Refused before the record and the namespace: neither was ever written.
    assert.deepEqual(await verifyNamespaces(), []);
    assert.deepEqual(verifyRecords(), []);
  },
);

kindTest("Pod Security on the reader's cluster: baseline refuses verify's node agents and admits 074's pods, restricted refuses 074's pods too", async () => {
  // Asked of the API server with a server-side dry run in namespaces labelled for each level: what verify would create.
  const agent = JSON.stringify(agentObject({ namespace: 'psa', runId: 'psa', node: 'worker', k8sName: 'kx-reader-worker', image: localImage() }));
  const backend = readFileSync(join(ARTICLES, SLUG, 'manifests/backend.yaml'), 'utf8').replace(/^\s*namespace: default\n/gm, '');
  const dryRun = async (namespace: string, object: string) => {
    const made = await execa('kubectl', ['--kubeconfig', cluster!.kubeconfig, 'create', '--dry-run=server', '--namespace', namespace, '-f', '-'], {
      env: host!.env,
      input: object.replace('"namespace":"psa"', `"namespace":"${namespace}"`),
      reject: false,
    });
    return { code: made.exitCode, said: made.stderr };
  };
  try {
    for (const level of ['baseline', 'restricted']) {
      await kubectl('create', 'namespace', `psa-${level}`);
      await kubectl('label', 'namespace', `psa-${level}`, `pod-security.kubernetes.io/enforce=${level}`);
    }
    const refusedAgent = await dryRun('psa-baseline', agent);
    assert.equal(refusedAgent.code, 1);
    assert.match(refusedAgent.said, /violates PodSecurity "baseline:latest": host namespaces \(hostNetwork=true, hostPID=true\), privileged/);
    assert.equal((await dryRun('psa-baseline', backend)).code, 0, "baseline admits the article's own pods");
    const refusedBackend = await dryRun('psa-restricted', backend);
    assert.equal(refusedBackend.code, 1);
    assert.match(refusedBackend.said, /pods "backend" is forbidden: violates PodSecurity "restricted:latest": .*runAsNonRoot != true/);
  } finally {
    await kubectl('delete', 'namespace', 'psa-baseline', 'psa-restricted', '--ignore-not-found');
  }
});

/**
 * Runs `body` while a ValidatingAdmissionPolicy refuses every pod created that does not pass `expression`, as Pod Security
 * or a policy engine would; enforced from the moment the API server refuses `probe` (a pod of the refused shape) by name.
 */
async function withPodPolicy(name: string, expression: string, message: string, probe: object, body: () => Promise<void>): Promise<void> {
  const policy = join(work, `${name}.yaml`);
  writeFileSync(
    policy,
    `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: ${name}}
spec:
  failurePolicy: Fail
  matchConstraints: {resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]}
  validations: [{expression: ${JSON.stringify(expression)}, message: ${JSON.stringify(message)}}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: ${name}}
spec: {policyName: ${name}, validationActions: [Deny]}
`,
  );
  await kubectl('apply', '-f', policy);
  try {
    const pod = JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'probe', namespace: 'default' }, ...probe });
    for (const deadline = performance.now() + 30_000; ;) {
      assert.ok(performance.now() < deadline, `the API server did not enforce ${name} within 30 s`);
      const tried = await execa('kubectl', ['--kubeconfig', cluster!.kubeconfig, 'create', '--dry-run=server', '-f', '-'], {
        env: host!.env,
        input: pod,
        reject: false,
      });
      if (tried.exitCode !== 0 && tried.stderr.includes(name)) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await body();
  } finally {
    await kubectl('delete', '-f', policy, '--ignore-not-found');
  }
}

kindTest(
  "a cluster whose admission refuses privileged pods: the claims on a step not checked, saying why, the rest checked; the run's namespace gone",
  async () => {
    // What Pod Security's baseline level or a policy engine does to the agents: pods may not share the host's PID namespace.
    const hostPid = { spec: { hostPID: true, containers: [{ name: 'c', image: localImage() }] } };
    await withPodPolicy(
      'no-host-pid',
      '!has(object.spec.hostPID) || !object.spec.hostPID',
      "pods may not share the host's PID namespace",
      hostPid,
      async () => {
        const run = await verify(['--out', join(work, 'refused')]);
        // The manifests applied and the Services read: the one claim on the API's objects alone held, so the exit is 0.
        assert.equal(run.code, 0, run.stderr);
        assert.match(
          run.stdout,
          /^074-external-traffic-policy on context kind-kx-reader \(Kubernetes v1\.37\.\d+, kube-proxy iptables\): 1 held, 0 broken, 12 not checked$/m,
        );
        assert.match(run.stdout, /^ {2}held {9}nodeport-local-has-no-health-port /m);
        assert.match(
          run.stdout,
          /because the cluster refused the run's node agents: .*no-host-pid.*pods may not share the host's PID namespace; every step runs on a node/,
        );
        assert.match(run.stderr, /no step runs: the cluster refused the run's node agents/);
        assert.deepEqual(await verifyNamespaces(), []);
        assert.deepEqual(verifyRecords(), []);
      },
    );
  },
);

kindTest(
  "a cluster whose admission refuses the article's own pods, as Pod Security's restricted level does: every claim not checked, saying why, exit 2; the run's namespace gone",
  async () => {
    // One of restricted's demands, which 074's manifests (no securityContext) do not meet.
    const asRoot = { spec: { containers: [{ name: 'c', image: localImage() }] } };
    const nonRoot = 'has(object.spec.securityContext) && has(object.spec.securityContext.runAsNonRoot) && object.spec.securityContext.runAsNonRoot';
    await withPodPolicy('run-as-non-root', nonRoot, 'pods must set runAsNonRoot', asRoot, async () => {
      const run = await verify(['--out', join(work, 'refused-pods')]);
      assert.equal(run.code, 2, run.stderr);
      assert.match(
        run.stdout,
        /^074-external-traffic-policy on context kind-kx-reader \(Kubernetes v1\.37\.\d+, kube-proxy iptables\): 0 held, 0 broken, 13 not checked$/m,
      );
      assert.match(
        run.stdout,
        /because the API server refused what manifests\/backend\.yaml creates: The pods "backend" is invalid: : ValidatingAdmissionPolicy 'run-as-non-root' .*denied request: pods must set runAsNonRoot; nothing of the experiment ran/,
      );
      assert.deepEqual(await verifyNamespaces(), []);
      assert.deepEqual(verifyRecords(), []);
    });
  },
);
