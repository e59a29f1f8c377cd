// Upstream's own tests of what the articles measure: the Service e2e tests of
// k8s.io/kubernetes/test/e2e/network that `npm run conformance` runs on the
// kind environment, each with the articles whose claims it covers, and those
// left out with the reason. One place: the run's focus, the record's check
// that every focused test ran, and the evidence pages all read this list.

/** A test as ginkgo names it: its containers' texts and its own, joined by spaces. */
export interface UpstreamTest {
  name: string;
  /** Where upstream defines it, in k8s.io/kubernetes. */
  file: 'test/e2e/network/service.go' | 'test/e2e/network/no_snat.go';
  /** The articles whose claims it covers (their evidence pages show its result). */
  articles: string[];
}

export interface LeftOutTest {
  name: string;
  file: UpstreamTest['file'];
  articles: string[];
  /** Why it cannot run here, in both languages: said on the record and on the pages. */
  reason: { zh: string; en: string };
}

const ETP = '074-external-traffic-policy';
const ITP = '076-internal-traffic-policy';
const SERVICES = '[sig-network] Services ';

export const UPSTREAM_TESTS: readonly UpstreamTest[] = [
  { name: `${SERVICES}should respect internalTrafficPolicy=Local Pod to Pod`, file: 'test/e2e/network/service.go', articles: [ITP] },
  { name: `${SERVICES}should respect internalTrafficPolicy=Local Pod (hostNetwork: true) to Pod`, file: 'test/e2e/network/service.go', articles: [ITP] },
  {
    name: `${SERVICES}should respect internalTrafficPolicy=Local Pod and Node, to Pod (hostNetwork: true)`,
    file: 'test/e2e/network/service.go',
    articles: [ITP],
  },
  { name: `${SERVICES}should support externalTrafficPolicy=Local for type=NodePort`, file: 'test/e2e/network/service.go', articles: [ETP] },
  {
    name: `${SERVICES}should implement NodePort and HealthCheckNodePort correctly when ExternalTrafficPolicy changes`,
    file: 'test/e2e/network/service.go',
    articles: [ETP],
  },
  { name: `${SERVICES}should fail health check node port if there are only terminating endpoints`, file: 'test/e2e/network/service.go', articles: [ETP] },
  {
    name: `${SERVICES}should fallback to terminating endpoints when there are no ready endpoints with internalTrafficPolicy=Cluster`,
    file: 'test/e2e/network/service.go',
    articles: [ITP],
  },
  {
    name: `${SERVICES}should fallback to local terminating endpoints when there are no ready endpoints with internalTrafficPolicy=Local`,
    file: 'test/e2e/network/service.go',
    articles: [ITP],
  },
  {
    // Upstream's spelling.
    name: `${SERVICES}should fallback to terminating endpoints when there are no ready endpoints with externallTrafficPolicy=Cluster`,
    file: 'test/e2e/network/service.go',
    articles: [ETP],
  },
  {
    name: `${SERVICES}should fallback to local terminating endpoints when there are no ready endpoints with externalTrafficPolicy=Local`,
    file: 'test/e2e/network/service.go',
    articles: [ETP],
  },
  { name: `${SERVICES}should preserve source pod IP for traffic thru service cluster IP [LinuxOnly]`, file: 'test/e2e/network/service.go', articles: [ITP] },
  { name: '[sig-network] NoSNAT Should be able to send traffic between Pods without SNAT', file: 'test/e2e/network/no_snat.go', articles: [ETP, ITP] },
];

export const LEFT_OUT_TESTS: readonly LeftOutTest[] = [
  {
    name: `${SERVICES}should be rejected when no endpoints exist`,
    file: 'test/e2e/network/service.go',
    articles: [ITP],
    reason: {
      zh: '它按名字访问 Service，要靠集群 DNS；这里的 kind 集群没有 CoreDNS（没有镜像仓库，CoreDNS 镜像没有在本机构建）',
      en: 'It reaches the Service by name, through the cluster’s DNS; the kind clusters here have no CoreDNS (no registry, and no CoreDNS image is built here)',
    },
  },
];

/** The upstream tests that cover an article, in the list's order. */
export const testsCovering = (slug: string): UpstreamTest[] => UPSTREAM_TESTS.filter((t) => t.articles.includes(slug));
export const leftOutCovering = (slug: string): LeftOutTest[] => LEFT_OUT_TESTS.filter((t) => t.articles.includes(slug));

/** The suite's name, as upstream's RunE2ETests gives it: ginkgo matches a focus against it, a space and the test's name. */
export const E2E_SUITE = 'Kubernetes e2e suite';

/** A name as a regular expression matching that test alone (ginkgo's --ginkgo.focus reads a regular expression). */
export const exactly = (name: string): string => `^${E2E_SUITE} ${name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`;

/** The focus of a run of these tests: each name, whole, as one alternative. */
export const focusOf = (tests: readonly { name: string }[]): string => tests.map((t) => exactly(t.name)).join('|');
