// npm run verify's pure parts on what a real cluster answered (tests/fixtures/samples/verify/):
// its arguments, the choice of nodes, the manifests and steps placed in the run's namespace,
// the node agents and their states, kube-proxy's configuration, and the claims judged on a
// real verify run of 074.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load, loadAll } from 'js-yaml';
import { loadArticle } from '../../src/authoring/load.ts';
import { parseVerifyArgs, VERIFY_USAGE } from '../../src/capture/session/verify-args.ts';
import { firstIPv4, judgeVerifyRun, kubeProxyConfig, planVerify, serviceRange, VerifyRefused, type ClusterReading } from '../../src/capture/session/verify.ts';
import { placeExperiment, placeManifest } from '../../src/capture/session/placement.ts';
import { claimVerdicts, formatVerdicts, tally } from '../../src/capture/session/verify-report.ts';
import { refusalLine } from '../../src/capture/kubectl/api-output.ts';
import { chooseNodes, parseNodesFlag, type ClusterNode } from '../../src/capture/existing/nodes.ts';
import { agentExec, agentObject, verifyNamespace } from '../../src/capture/existing/agent.ts';
import { agentStates, cniConfigFile, cniPluginTypes } from '../../src/capture/existing/provider.ts';
import { evidenceFromDisk } from '../../src/evidence/runs/from-disk.ts';
import { UsageError } from '../../src/capture/session/cli-args.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const samples = join(root, 'tests/fixtures/samples/verify');
const sample = (name: string) => readFileSync(join(samples, name), 'utf8');
const nodesOf = (json: string): ClusterNode[] =>
  (
    JSON.parse(json) as {
      items: Array<{ metadata: { name: string; labels: Record<string, string> }; status: { conditions: Array<{ type: string; status: string }> } }>;
    }
  ).items.map((i) => ({
    k8sName: i.metadata.name,
    role: 'node-role.kubernetes.io/control-plane' in i.metadata.labels ? 'control-plane' : 'worker',
    ready: i.status.conditions.some((c) => c.type === 'Ready' && c.status === 'True'),
  }));
const CLUSTER = nodesOf(sample('nodes.json'));
const SLUG = '074-external-traffic-policy';

test('verify takes one slug and a kubeconfig, and names what is missing in one line', () => {
  assert.deepEqual(parseVerifyArgs([SLUG, '--kubeconfig', 'k', '--nodes', 'control-plane=a']).nodes, 'control-plane=a');
  assert.throws(() => parseVerifyArgs([SLUG]), /--kubeconfig FILE is required/);
  assert.throws(() => parseVerifyArgs(['--kubeconfig', 'k']), /expected one article's slug, got 0/);
  assert.throws(() => parseVerifyArgs([SLUG, 'other', '--kubeconfig', 'k']), /expected one article's slug, got 2/);
  assert.throws(
    () => parseVerifyArgs([SLUG, '--kubeconfig', 'k', '--context', ' ']),
    (e: unknown) => e instanceof UsageError && /--context needs a value/.test((e as Error).message),
  );
  assert.throws(() => parseVerifyArgs([SLUG, '--kubeconfig', 'k', '--driver', 'kind']), /Unknown option '--driver'/);
  for (const flag of [
    '--kubeconfig FILE',
    '--context NAME',
    '--nodes ROLE=NODE,...',
    '--agent-image IMG',
    '--stand-in-images',
    '--variant MODE',
    '--out DIR',
    '--keep',
  ])
    assert.ok(VERIFY_USAGE.includes(`  ${flag}`), `the usage names ${flag}`);
});

test("the experiment's nodes go to the cluster's Ready nodes: the control plane first, then the workers by name; too few is one line", async () => {
  const experiment = (await loadArticle(root, SLUG)).experiment!;
  assert.deepEqual(chooseNodes(experiment.cluster.nodes, CLUSTER, null), {
    nodes: { 'control-plane': 'kx-reader-control-plane', worker: 'kx-reader-worker', worker2: 'kx-reader-worker2' },
    chosen: true,
  });
  assert.deepEqual(chooseNodes(experiment.cluster.nodes, CLUSTER.slice(0, 2), null), {
    problem: 'the cluster has 2 Ready nodes (kx-reader-control-plane, kx-reader-worker); the experiment needs 3 nodes (control-plane, worker, worker2)',
  });
  const notReady = CLUSTER.map((n) => (n.k8sName.endsWith('worker2') ? { ...n, ready: false } : n));
  assert.match((chooseNodes(experiment.cluster.nodes, notReady, null) as { problem: string }).problem, /^the cluster has 2 Ready nodes/);
  // Named: every one a Ready node of the cluster, none playing two parts.
  const given = parseNodesFlag('control-plane=kx-reader-control-plane,worker=kx-reader-worker2,worker2=kx-reader-worker', experiment.cluster.nodes);
  assert.deepEqual(chooseNodes(experiment.cluster.nodes, CLUSTER, given as Record<string, string>), {
    nodes: { 'control-plane': 'kx-reader-control-plane', worker: 'kx-reader-worker2', worker2: 'kx-reader-worker' },
    chosen: false,
  });
  const twice = parseNodesFlag('control-plane=kx-reader-control-plane,worker=kx-reader-worker,worker2=kx-reader-worker', experiment.cluster.nodes) as Record<
    string,
    string
  >;
  assert.deepEqual(chooseNodes(experiment.cluster.nodes, CLUSTER, twice), {
    problem: "--nodes: node kx-reader-worker plays two of the experiment's nodes; each needs its own",
  });
  const absent = { 'control-plane': 'kx-reader-control-plane', worker: 'gone', worker2: 'kx-reader-worker' };
  assert.match(
    (chooseNodes(experiment.cluster.nodes, CLUSTER, absent) as { problem: string }).problem,
    /^--nodes: worker=gone: the cluster has no node gone \(it has kx-reader-control-plane, /,
  );
  assert.match(
    (chooseNodes(experiment.cluster.nodes, CLUSTER, { worker: 'kx-reader-worker' }) as { problem: string }).problem,
    /^--nodes: names no node for control-plane, worker2/,
  );
  assert.deepEqual(parseNodesFlag('client=a', experiment.cluster.nodes), {
    problem: '--nodes: the experiment has no node "client"; it has control-plane, worker, worker2',
  });
  assert.match((parseNodesFlag('worker', experiment.cluster.nodes) as { problem: string }).problem, /^--nodes: expected ROLE=NODE pairs/);
});

test("074's manifests placed in the run's namespace, on the cluster's nodes, with the stand-in image; a cluster-wide object refused", async () => {
  const dir = join(root, 'content/articles', SLUG);
  const placement = {
    namespace: 'shice-verify-x',
    nodes: {
      'control-plane': { k8sName: 'cp-1', hostname: 'cp-1' },
      worker: { k8sName: 'node-b', hostname: 'node-b.example' },
      worker2: { k8sName: 'node-c', hostname: 'node-c' },
    },
    images: new Map([['nginx:1.27-alpine', 'shice/nginx-light:local']]),
  };
  const placed = placeManifest(readFileSync(join(dir, 'manifests/backend.yaml'), 'utf8'), 'manifests/backend.yaml', 'kx-main', placement);
  assert.ok('text' in placed);
  const docs = loadAll(placed.text) as Array<{
    kind: string;
    metadata: { namespace: string };
    spec?: { nodeSelector?: Record<string, string>; containers?: Array<{ image: string }> };
  }>;
  assert.deepEqual(
    docs.map((d) => [d.kind, d.metadata.namespace]),
    [
      ['ConfigMap', 'shice-verify-x'],
      ['Pod', 'shice-verify-x'],
    ],
  );
  const pod = docs.find((d) => d.kind === 'Pod')!;
  assert.deepEqual(
    pod.spec!.nodeSelector,
    { 'kubernetes.io/hostname': 'node-b.example' },
    'the backend goes to the node playing worker, by its hostname label',
  );
  assert.equal(pod.spec!.containers![0]!.image, 'shice/nginx-light:local');
  const services = placeManifest(readFileSync(join(dir, 'manifests/services.yaml'), 'utf8'), 'manifests/services.yaml', 'kx-main', placement);
  assert.ok(
    'text' in services && (loadAll(services.text) as Array<{ metadata: { namespace: string } }>).every((d) => d.metadata.namespace === 'shice-verify-x'),
  );
  assert.deepEqual(placeManifest('kind: ClusterRole\nmetadata: {name: r}\n', 'manifests/rbac.yaml', 'kx-main', placement), {
    problem: 'manifests/rbac.yaml: ClusterRole r: a cluster-wide object; verify creates objects only in its own namespace',
  });
  assert.deepEqual(
    placeManifest('kind: Pod\nmetadata: {name: p}\nspec: {nodeSelector: {kubernetes.io/hostname: elsewhere}}\n', 'manifests/p.yaml', 'kx-main', placement),
    { problem: "manifests/p.yaml: Pod p: field spec.nodeSelector.kubernetes.io/hostname: elsewhere is none of the experiment's nodes" },
  );
  // The steps follow: 074's delete names the run's namespace; 076's requests from a pod enter that pod's network there.
  const deleted = placeExperiment((await loadArticle(root, SLUG)).experiment!, 'shice-verify-x').steps.find((s) => s.kind === 'delete-pod');
  assert.equal(deleted && 'namespace' in deleted ? deleted.namespace : null, 'shice-verify-x');
  const fromPods = placeExperiment((await loadArticle(root, '076-internal-traffic-policy')).experiment!, 'shice-verify-x').steps.flatMap((s) =>
    s.kind === 'exec' && s.pod ? [s.pod.namespace] : [],
  );
  assert.ok(fromPods.length > 0 && fromPods.every((n) => n === 'shice-verify-x'));
});

test('a node agent is pinned to its node, privileged in the host network and PID namespaces, and a command enters the node through it', () => {
  const pod = agentObject({ namespace: 'shice-verify-x', runId: 'R', node: 'worker', k8sName: 'node-b', image: 'debian:trixie-slim' }) as {
    metadata: { name: string; labels: Record<string, string> };
    spec: { nodeName: string; hostNetwork: boolean; hostPID: boolean; tolerations: unknown[]; containers: Array<{ securityContext: { privileged: boolean } }> };
  };
  assert.equal(pod.metadata.name, 'shice-agent-worker');
  assert.equal(pod.metadata.labels['shice.dev/verify-run'], 'R');
  assert.deepEqual(
    [pod.spec.nodeName, pod.spec.hostNetwork, pod.spec.hostPID, pod.spec.containers[0]!.securityContext.privileged],
    ['node-b', true, true, true],
  );
  assert.deepEqual(pod.spec.tolerations, [{ operator: 'Exists' }]);
  assert.deepEqual(agentExec({ kubeconfig: 'kc', runner: ['kubectl', '--context', 'c'] }, 'ns', 'worker', ['iptables-save']), [
    'kubectl',
    '--context',
    'c',
    '--kubeconfig',
    'kc',
    'exec',
    '--namespace',
    'ns',
    'shice-agent-worker',
    '--container',
    'agent',
    '--',
    'nsenter',
    '--target',
    '1',
    '--mount',
    '--uts',
    '--ipc',
    '--net',
    '--pid',
    '--',
    'iptables-save',
  ]);
  assert.equal(verifyNamespace('20261207T103903Z-d6d881'), 'shice-verify-20261207t103903z-d6d881');
});

test("the CNI configuration a node's runtime loads, as its plugins' types: kindnet's conflist as a kind node holds it", () => {
  assert.equal(cniConfigFile(sample('cni-net.d.txt')), '10-kindnet.conflist');
  assert.equal(cniConfigFile('99-z.conf\n10-a.conflist\nREADME\n'), '10-a.conflist', 'by name, as libcni sorts them; other files are not configurations');
  assert.equal(cniConfigFile(''), null);
  assert.equal(cniPluginTypes(sample('10-kindnet.conflist'), '10-kindnet.conflist'), 'ptp, portmap');
  assert.equal(cniPluginTypes('{"type": "bridge"}', '10-bridge.conf'), 'bridge');
  assert.equal(cniPluginTypes('{', 'x.conf'), 'x.conf is not JSON');
});

test("the agents' states as the API reported them: all running, then one being deleted", () => {
  const names = ['shice-agent-control-plane', 'shice-agent-worker', 'shice-agent-worker2'];
  assert.deepEqual(
    agentStates(sample('agents-running.json'), names),
    names.map((n) => `${n}: running`),
  );
  const after = agentStates(sample('agents-one-deleting.json'), names);
  assert.equal(after.filter((s) => s.endsWith(': running')).length, 2);
  assert.match(after[1]!, /^shice-agent-worker: (being deleted|gone)$/);
});

test("kube-proxy's mode and the cluster's pod range from its kubeadm ConfigMap decide the variant and the pod range recorded", async () => {
  assert.deepEqual(kubeProxyConfig(sample('kube-proxy-configmap.json')), { mode: 'iptables', clusterCIDR: '10.244.0.0/16' });
  const json = (conf: string) => JSON.stringify({ data: { 'config.conf': conf } });
  assert.deepEqual(kubeProxyConfig(json('mode: ""\nclusterCIDR: 10.1.0.0/16,fd00::/56\n')), { mode: 'iptables', clusterCIDR: '10.1.0.0/16' });
  assert.deepEqual(kubeProxyConfig(json('mode: nftables\n')), { mode: 'nftables', clusterCIDR: null });
  const article = await loadArticle(root, SLUG);
  const reading = (mode: string | null, clusterCIDR: string | null, serviceCIDR: string | null = '10.2.0.0/16'): ClusterReading => ({
    kubeconfig: 'kc',
    context: 'c',
    server: 'v1.37.2',
    nodes: CLUSTER,
    hostnames: {},
    proxyConfig: { mode, clusterCIDR },
    serviceCIDR,
  });
  const plan = planVerify({ article, reading: reading('nftables', '10.1.0.0/16'), nodes: null, variant: null, runId: 'R' });
  assert.equal(plan.variant, 'nftables');
  assert.equal(plan.experiment.cluster.kubeProxyMode, 'nftables');
  assert.equal(plan.experiment.cluster.podSubnet, '10.1.0.0/16');
  assert.equal(plan.experiment.cluster.serviceSubnet, '10.2.0.0/16');
  assert.equal(firstIPv4('fd00:10:96::/112,10.96.0.0/16'), '10.96.0.0/16');
  assert.equal(serviceRange(sample('servicecidr.json')), '10.96.0.0/16');
  assert.throws(
    () => planVerify({ article, reading: reading('iptables', '10.1.0.0/16', null), nodes: null, variant: null, runId: 'R' }),
    /no ServiceCIDR "kubernetes" with an IPv4 range/,
  );
  assert.throws(
    () => planVerify({ article, reading: reading('iptables', null), nodes: null, variant: null, runId: 'R' }),
    (e: unknown) => e instanceof VerifyRefused && /names no IPv4 clusterCIDR/.test((e as Error).message),
  );
  assert.throws(
    () => planVerify({ article, reading: reading('iptables', '10.1.0.0/16'), nodes: null, variant: 'userspace', runId: 'R' }),
    /--variant userspace: the experiment is measured in iptables, nftables, ipvs/,
  );
});

test('a real verify run of 074 in a namespace of its own: every iptables claim held; the nftables claim and the comparisons not checked, each saying why', async () => {
  const article = await loadArticle(root, SLUG);
  const dir = join(samples, 'run-074-iptables');
  const run = load(readFileSync(join(dir, 'run.yaml'), 'utf8')) as { driver: string; services: Array<{ namespace: string }> };
  assert.equal(run.driver, 'existing');
  assert.ok(
    run.services.every((s) => s.namespace.startsWith('shice-verify-')),
    "the run's Services were in its own namespace",
  );
  const evidence = evidenceFromDisk(SLUG, dir, article, { variants: false, variant: 'iptables', collectUnfound: true });
  const verdicts = claimVerdicts(article.claimDefs, article.comparisonDefs ?? [], evidence, 'iptables');
  assert.equal(tally(verdicts), '9 held, 0 broken, 4 not checked');
  assert.deepEqual(
    verdicts.filter((v) => v.verdict === 'not checked').map((v) => [v.id, v.why]),
    [
      ['nft-drops-without-backend', "it is about kube-proxy's nftables mode; this cluster runs iptables"],
      ...(article.comparisonDefs ?? []).map((c) => [c.id, 'it compares the runs of several kube-proxy modes; a cluster runs one']),
    ],
  );
  // The same run against a claim it does not bear out: broken, with the values it read.
  const wrong = { ...article.claimDefs[0]!, id: 'says-otherwise', holds: (v: (id: string) => string) => v('local-via-worker2.rc') === '0' };
  const broken = claimVerdicts(
    [wrong],
    [],
    evidenceFromDisk(SLUG, dir, { ...article, claimDefs: [wrong] }, { variants: false, variant: 'iptables', collectUnfound: true }),
    'iptables',
  );
  assert.equal(broken[0]!.verdict, 'broken');
  assert.deepEqual(formatVerdicts(broken).slice(-1), ['               local-via-worker2.rc = "28"']);
});

test("a real verify run of 074 on a cluster that refused its node agents: no step ran; the claim on the API's objects alone held, every other not checked, saying why", async () => {
  const article = await loadArticle(root, SLUG);
  const dir = join(samples, 'run-074-refused');
  const run = load(readFileSync(join(dir, 'run.yaml'), 'utf8')) as { steps: string[]; environment: { limits: Array<{ en: string }> } };
  assert.deepEqual(run.steps, []);
  assert.match(run.environment.limits[0]!.en, /^No command ran on a node, so no step ran: the cluster refused the run’s node agents \(.*no-host-pid/);
  const refused = `the cluster refused the run's node agents: ${/\((Error from server.*)\)\. Only/.exec(run.environment.limits[0]!.en)![1]}`;
  const verdicts = judgeVerifyRun(SLUG, dir, article, 'iptables', refused);
  assert.equal(tally(verdicts), '1 held, 0 broken, 12 not checked');
  assert.deepEqual(
    verdicts.filter((v) => v.verdict === 'held').map((v) => v.id),
    ['nodeport-local-has-no-health-port'],
  );
  const onSteps = verdicts.filter((v) => v.verdict === 'not checked' && v.why?.startsWith(refused));
  assert.equal(onSteps.length, 8, 'every claim of iptables mode that reads a step');
  assert.ok(onSteps.every((v) => v.why === `${refused}; every step runs on a node, or after kube-proxy's rules are awaited on each`));
  // The same run judged as if the nodes had answered: its missing facts are what broke, not a reason to skip.
  assert.throws(() => judgeVerifyRun(SLUG, dir, article, 'iptables', null), /not a step of the experiment/);
});

test("the API server's refusal of an object, told from kubectl's other failures: Pod Security's, a policy's; not kubectl's own complaint", () => {
  const restricted = readFileSync(join(root, 'tests/fixtures/samples/kubectl/apply-refused-restricted.txt'), 'utf8');
  assert.match(refusalLine(restricted) ?? '', /^Error from server \(Forbidden\): .*pods "backend" is forbidden: violates PodSecurity "restricted:latest"/);
  // The agents' refusal by a ValidatingAdmissionPolicy, as the refused run recorded kubectl's line.
  const run = load(readFileSync(join(samples, 'run-074-refused', 'run.yaml'), 'utf8')) as { environment: { limits: Array<{ en: string }> } };
  const policy = /\((Error from server.*)\)\. Only/.exec(run.environment.limits[0]!.en)![1]!;
  assert.equal(refusalLine(`${policy}\n`), policy);
  // apply's words for a policy's refusal of the article's own pod.
  const applied = readFileSync(join(root, 'tests/fixtures/samples/kubectl/apply-refused-policy.txt'), 'utf8');
  assert.equal(refusalLine(applied), applied.trim());
  // What kubectl says before it asks the server is no refusal by the cluster.
  assert.equal(
    refusalLine(
      'the namespace from the provided object "default" does not match the namespace "psa-restricted". You must pass \'--namespace=default\' to perform this operation.\n',
    ),
    null,
  );
});
