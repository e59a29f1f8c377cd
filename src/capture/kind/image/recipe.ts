// What goes into the images `npm run kind:prepare` builds where no registry can
// be reached: kind's node image for each Kubernetes release, the images kubeadm
// expects to find preloaded in it, and the backend image an experiment's pods
// run instead of one it cannot pull. Pure: file texts and package lists are
// handed in, names, texts and stamps come out. The I/O is in build.ts and the
// builders beside it.
import { createHash } from 'node:crypto';

/** kind, built from its Go module at the newest version the module proxy served (2026-12-03). */
export const KIND_MODULE = 'sigs.k8s.io/kind';
export const KIND_VERSION = 'v0.33.0';
/** crictl, which kind's node image carries (kind load asks it whether an image is there). */
export const CRICTL_MODULE = 'sigs.k8s.io/cri-tools/cmd/crictl';
export const CRICTL_VERSION = 'v1.37.0';

/** Raised on bad input to a recipe: one line naming the file and what was expected. */
export class RecipeError extends Error {
  override name = 'RecipeError';
}

/** Debian packages besides kind's own list: the container runtime and the CNI plugins, from Debian instead of kind's builds. */
export const NODE_RUNTIME_PACKAGES = ['containerd', 'runc', 'containernetworking-plugins'];
/** kube-proxy's image carries iptables, nft and conntrack (upstream's distroless-iptables base). */
export const COMPONENT_PACKAGES = ['iptables', 'nftables', 'conntrack'];
export const BACKEND_PACKAGES = ['nginx-light'];
/** The CNI plugins kind's node image carries in /opt/cni/bin. */
export const NODE_CNI_PLUGINS = ['host-local', 'loopback', 'ptp', 'portmap'];

/**
 * The packages kind's base image installs, read from its Dockerfile
 * (images/base/Dockerfile: `clean-install \ pkg pkg \ ... && find ...`).
 */
export function kindBasePackages(dockerfile: string, file = 'images/base/Dockerfile'): string[] {
  const start = dockerfile.indexOf('clean-install');
  if (start < 0) throw new RecipeError(`${file}: expected a \`clean-install <packages>\` step, found none`);
  const rest = dockerfile.slice(start + 'clean-install'.length);
  const end = rest.indexOf('&&');
  const packages = (end < 0 ? rest : rest.slice(0, end)).replace(/\\\n/g, ' ').split(/\s+/).filter(Boolean);
  if (packages.length === 0 || packages.some((p) => !/^[a-z0-9][a-z0-9+.-]+$/.test(p))) {
    throw new RecipeError(`${file}: expected Debian package names after clean-install, got ${JSON.stringify(packages.slice(0, 5))}`);
  }
  return packages;
}

/** One apt source line. */
export interface AptSource {
  uri: string;
  suite: string;
  components: string[];
  signedBy: string | null;
}

/**
 * The Debian sources the host's apt is configured with (sources.list lines and
 * deb822 .sources stanzas), limited to the host's release: the images are built
 * from the same mirror and suites the machine installs its own packages from.
 */
export function aptSources(files: { name: string; text: string }[], codename: string): AptSource[] {
  const out: AptSource[] = [];
  const keep = (suite: string) => suite === codename || suite.startsWith(`${codename}-`);
  for (const { name, text } of files) {
    if (name.endsWith('.sources')) {
      for (const stanza of text.split(/\n\s*\n/)) {
        const field = (key: string): string | null => {
          const m = new RegExp(`^${key}:\\s*(.+)$`, 'mi').exec(stanza);
          return m ? m[1]!.trim() : null;
        };
        if (!(field('Types') ?? '').split(/\s+/).includes('deb') || /^Enabled:\s*no/im.test(stanza)) continue;
        const components = (field('Components') ?? '').split(/\s+/).filter(Boolean);
        for (const uri of (field('URIs') ?? '').split(/\s+/).filter(Boolean)) {
          for (const suite of (field('Suites') ?? '').split(/\s+/).filter(keep)) {
            out.push({ uri, suite, components, signedBy: field('Signed-By') });
          }
        }
      }
    } else {
      for (const raw of text.split('\n')) {
        const line = raw.replace(/#.*/, '').trim();
        const m = /^deb\s+(?:\[([^\]]*)\]\s+)?(\S+)\s+(\S+)\s+(.+)$/.exec(line);
        if (!m || !keep(m[3]!)) continue;
        const signed = /signed-by=(\S+)/.exec(m[1] ?? '');
        out.push({ uri: m[2]!, suite: m[3]!, components: m[4]!.split(/\s+/), signedBy: signed ? signed[1]! : null });
      }
    }
  }
  return out;
}

/** The mirror debootstrap fetches the release from: the host's source for the release itself. */
export function debootstrapMirror(sources: AptSource[], codename: string): string {
  const main = sources.find((s) => s.suite === codename);
  if (!main) throw new RecipeError(`/etc/apt: expected a "deb" source for ${codename} (the host's release), found none`);
  return main.uri;
}

export function sourcesList(sources: AptSource[]): string {
  return `${sources.map((s) => `deb ${s.signedBy ? `[signed-by=${s.signedBy}] ` : ''}${s.uri} ${s.suite} ${s.components.join(' ')}`).join('\n')}\n`;
}

/** apt options the host sets that the build must keep (a mirror whose Release files are past Valid-Until). */
export function aptOptions(aptConfigDump: string): string[] {
  const out: string[] = [];
  for (const key of ['Acquire::Check-Valid-Until', 'Acquire::Check-Date']) {
    const m = new RegExp(`^${key} "([^"]*)";$`, 'm').exec(aptConfigDump);
    if (m) out.push('-o', `${key}=${m[1]}`);
  }
  return out;
}

/**
 * kind's containerd config, adapted where the host needs it: a node on a host that
 * cannot lower oom_score_adj (no CAP_SYS_RESOURCE) must tell containerd to clamp it.
 */
export function containerdConfig(kindConfig: string, restrictOomScoreAdj: boolean, file = 'images/base/files/etc/containerd/config.toml'): string {
  if (!restrictOomScoreAdj) return kindConfig;
  const line = /^(\s*)restrict_oom_score_adj\s*=\s*false\s*$/m;
  if (!line.test(kindConfig)) throw new RecipeError(`${file}: expected a "restrict_oom_score_adj = false" line to adapt, found none`);
  return kindConfig.replace(line, '$1restrict_oom_score_adj = true');
}

/** kind's containerd.service, without the limits systemd cannot set where CAP_SYS_RESOURCE is missing. */
export function containerdUnit(kindUnit: string, withoutResourceLimits: boolean): string {
  if (!withoutResourceLimits) return kindUnit;
  return kindUnit
    .split('\n')
    .filter((line) => !/^(OOMScoreAdjust|LimitNOFILE|LimitNPROC|LimitCORE)=/.test(line))
    .join('\n');
}

/** `ctr oci spec` with kind's createContainer hook added and the rlimits removed (as images/base/Dockerfile does with jq). */
export function criBaseSpec(ociSpecJson: string): string {
  let spec: { hooks?: { createContainer?: unknown[] }; process?: { rlimits?: unknown } };
  try {
    spec = JSON.parse(ociSpecJson);
  } catch (error) {
    throw new RecipeError(`ctr oci spec: expected JSON, got ${JSON.stringify(ociSpecJson.slice(0, 60))} (${(error as Error).message})`);
  }
  spec.hooks = { ...spec.hooks, createContainer: [...(spec.hooks?.createContainer ?? []), { path: '/kind/bin/mount-product-files.sh' }] };
  if (spec.process) delete spec.process.rlimits;
  return `${JSON.stringify(spec, null, 2)}\n`;
}

/** What kubeadm expects to find: one `registry/name:tag` per line of `kubeadm config images list`. */
export interface ExpectedImages {
  apiserver: string;
  controllerManager: string;
  scheduler: string;
  proxy: string;
  etcd: string;
  pause: string;
  coredns: string;
}

export function parseKubeadmImages(listing: string): ExpectedImages {
  const lines = listing
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const find = (name: string): string => {
    const line = lines.find((l) => l.replace(/:[^/:]+$/, '').endsWith(`/${name}`));
    if (!line) throw new RecipeError(`kubeadm config images list: expected an image named ${name}, got ${JSON.stringify(lines)}`);
    return line;
  };
  return {
    apiserver: find('kube-apiserver'),
    controllerManager: find('kube-controller-manager'),
    scheduler: find('kube-scheduler'),
    proxy: find('kube-proxy'),
    etcd: find('etcd'),
    pause: find('pause'),
    coredns: find('coredns'),
  };
}

export const imageTag = (image: string): string => image.slice(image.lastIndexOf(':') + 1);

/** `etcd --version`'s first line: "etcd Version: 3.7.0". */
export function parseEtcdVersion(stdout: string): string {
  const m = /^etcd Version: (\S+)$/m.exec(stdout);
  if (!m) throw new RecipeError(`etcd --version: expected "etcd Version: X", got ${JSON.stringify(stdout.slice(0, 80))}`);
  return m[1]!;
}

/**
 * The etcd image is our build of etcd: its tag must name the version we built
 * (kubeadm's tags are `<etcd version>-<image revision>`), or we would be lying by name.
 */
export function checkEtcdTag(expected: string, builtVersion: string): void {
  const tag = imageTag(expected);
  if (!tag.startsWith(`${builtVersion.replace(/^v/, '')}-`)) {
    throw new RecipeError(`kube/go.mod: kubeadm expects ${expected}, but the etcd built from kube/ is ${builtVersion}; build the etcd version kubeadm pins`);
  }
}

/** The sandbox image kind's containerd config names (`sandbox_image = "..."`). */
export function sandboxImage(kindContainerdConfig: string, file = 'images/base/files/etc/containerd/config.toml'): string {
  const m = /^\s*sandbox_image\s*=\s*"([^"]+)"/m.exec(kindContainerdConfig);
  if (!m) throw new RecipeError(`${file}: expected a sandbox_image line, found none`);
  return m[1]!;
}

/** The pause version in upstream's build/pause/Makefile (`TAG ?= 3.10.2`). */
export function pauseVersion(makefile: string, file = 'build/pause/Makefile'): string {
  const m = /^TAG \?= (\S+)$/m.exec(makefile);
  if (!m) throw new RecipeError(`${file}: expected a "TAG ?= <version>" line, found none`);
  return m[1]!;
}

/**
 * The nginx image's /etc/nginx/nginx.conf, for Debian's nginx-light: the server
 * blocks come from /etc/nginx/conf.d, where the experiment's ConfigMap is mounted,
 * and the logs go to the container's output as the image sends them.
 */
export function backendNginxConf(): string {
  return [
    "# shice's backend image: the nginx image's main config, for Debian's nginx-light.",
    'user www-data;',
    'worker_processes auto;',
    'error_log /var/log/nginx/error.log notice;',
    'pid /run/nginx.pid;',
    '',
    'events {',
    '    worker_connections 1024;',
    '}',
    '',
    'http {',
    '    include /etc/nginx/mime.types;',
    '    default_type application/octet-stream;',
    '    log_format main \'$remote_addr - $remote_user [$time_local] "$request" \'',
    '                    \'$status $body_bytes_sent "$http_referer" \'',
    '                    \'"$http_user_agent" "$http_x_forwarded_for"\';',
    '    access_log /var/log/nginx/access.log main;',
    '    sendfile on;',
    '    keepalive_timeout 65;',
    '    include /etc/nginx/conf.d/*.conf;',
    '}',
    '',
  ].join('\n');
}

/** A Dockerfile that only sets configuration on an image built before (Docker 20.10's commit and import refuse STOPSIGNAL). */
export function configDockerfile(
  from: string,
  config: {
    env?: Record<string, string>;
    stopSignal?: string;
    entrypoint?: string[];
    cmd?: string[];
    expose?: number[];
    labels?: Record<string, string>;
  },
): string {
  const lines = [`FROM ${from}`];
  for (const [k, v] of Object.entries(config.env ?? {})) lines.push(`ENV ${k}=${JSON.stringify(v)}`);
  if (config.stopSignal) lines.push(`STOPSIGNAL ${config.stopSignal}`);
  if (config.entrypoint) lines.push(`ENTRYPOINT ${JSON.stringify(config.entrypoint)}`);
  if (config.cmd) lines.push(`CMD ${JSON.stringify(config.cmd)}`);
  for (const port of config.expose ?? []) lines.push(`EXPOSE ${port}`);
  for (const [k, v] of Object.entries(config.labels ?? {})) lines.push(`LABEL ${k}=${JSON.stringify(v)}`);
  return `${lines.join('\n')}\n`;
}

/**
 * The name containerd lists an image by once imported from `docker save`: Docker's
 * normalisation (a name without a registry is Docker Hub's, a one-part name is in `library/`).
 */
export function containerdImageName(name: string): string {
  const slash = name.indexOf('/');
  const first = slash < 0 ? '' : name.slice(0, slash);
  if (slash >= 0 && (first.includes('.') || first.includes(':') || first === 'localhost')) return name;
  return slash < 0 ? `docker.io/library/${name}` : `docker.io/${name}`;
}

/** The label under which a local image lists what went into it. */
export const INPUTS_LABEL = 'org.shice.inputs';

/** A stamp over everything that decides an image: equal stamps, same image. */
export function stamp(parts: Record<string, string>): string {
  const hash = createHash('sha256');
  for (const key of Object.keys(parts).sort()) hash.update(`${key}\0${parts[key]}\0`);
  return hash.digest('hex').slice(0, 12);
}

/** Docker tags allow [A-Za-z0-9_.-]: a Debian version such as 1.22.1-9+deb12u3 becomes 1.22.1-9_deb12u3. */
export const tagSafe = (version: string): string => version.replace(/[^A-Za-z0-9_.-]/g, '_');

/** An image without its stamp: `shice/pause:3.10.2` of `shice/pause:3.10.2-<stamp>`. */
const unstamped = (tag: string): string => tag.replace(/-[0-9a-f]{12}$/, '');

/**
 * shice's images a build makes superseded: every listed one that is another
 * stamp of an image the build has just made (same name and version: an earlier
 * build of it). Another release's images, and any image this build did not
 * make, stay: that release's node image is still in use until its own prepare.
 */
export function supersededImages(listed: readonly string[], current: readonly string[]): string[] {
  const made = new Set(current.map(unstamped));
  return listed.map((l) => l.trim()).filter((tag) => tag !== '' && !current.includes(tag) && made.has(unstamped(tag)));
}
