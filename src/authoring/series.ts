// What every article of the Kubernetes series runs on, declared once: an article
// extends it with its own slug, manifests and steps, and says only where it differs.
import { threeNodeCluster } from '../experiment/clusters.ts';
import { NGINX_AS_DEBIAN_NGINX_LIGHT } from '../experiment/substitutes.ts';
import type { Experiment } from '../experiment/types.ts';

/** The parts the series decides; an article may still give any of them itself. */
type SeriesPart = 'cluster' | 'client' | 'imageSubstitutes' | 'environments' | 'kubernetes';

export type SeriesExperiment = Omit<Experiment, SeriesPart> & Partial<Pick<Experiment, SeriesPart>>;

/** The series' experiment with the article's own parts over it (fresh arrays each time: nothing is shared between articles). */
export function kubernetesSeries(own: SeriesExperiment): Experiment {
  return {
    // kind's default shape: a control-plane node and two workers.
    cluster: threeNodeCluster(),
    // The control-plane node plays the client outside the cluster.
    client: 'control-plane',
    // Where no registry answers, the kind driver runs Debian's nginx-light in place of the nginx image (said on the page).
    imageSubstitutes: [NGINX_AS_DEBIAN_NGINX_LIGHT],
    // Measured on a real kind cluster (the headline: the runs the prose binds) and in the namespace lab.
    environments: ['kind', 'lab'],
    // Measured on four minors; the newest is the headline, the others are checked from their committed runs.
    kubernetes: ['v1.37', 'v1.36', 'v1.35', 'v1.34'],
    ...own,
  };
}
