// What a run says about its environment, in both languages (run.yaml's
// `environment`): what ran the experiment, what it stands for, its limits.
// Each driver's sentences are built here from what the run declared and
// reported, never from what a driver assumes.

/** A sentence in each language of the site: the page shows the reader's. */
export interface Localized {
  zh: string;
  en: string;
}

export interface RunEnvironment {
  /** One sentence: what ran the experiment. */
  summary: Localized;
  /** What it stands in for. */
  standsFor: Localized;
  /** What this run was not or did not verify, the largest limit first. */
  limits: Localized[];
}

/** What a run found out about itself that its description names (from the versions the tools reported). */
export interface RunIdentity {
  /** kube-proxy's mode as kube-proxy reported it (the experiment's when it could not be asked). */
  kubeProxyMode: string;
  /** The version the API server reported ("v1.37.2"), or null when it was not asked. */
  kubernetesVersion: string | null;
  /** How many nodes the experiment declared. */
  nodes: number;
  /** How many of the Services read back are of type LoadBalancer: the note on a load balancer that never comes is said only where one is. */
  loadBalancers: number;
}
