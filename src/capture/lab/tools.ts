// What the lab needs from the machine, and the versions its tools report.
import { release } from 'node:os';
import { join } from 'node:path';
import { runJudged } from '../machine/checked-run.ts';
import { DriverError, PrerequisiteError } from '../provider/node-provider.ts';
import { HEADLINE_RELEASE, type KubeRelease } from '../../experiment/kubernetes.ts';
import { chooseKubeBinDir, findProgram, KUBE_COMPONENTS, kubeBinProblem, missingComponents } from '../machine/kube-bin.ts';
import { NGINX_BINARY } from './nginx.ts';
import { firstLine } from '../machine/process.ts';
import type { IpvsFacts } from '../machine/host.ts';

/** Where Debian's containernetworking-plugins puts the CNI plugins. */
export const CNI_BIN_DIR = '/usr/lib/cni';
/** kindnet's chain (ptp, host-local, portmap) and containerd's loopback. */
const CNI_PLUGINS = ['ptp', 'host-local', 'portmap', 'loopback'];

export interface LabTool {
  /** A program name looked up on PATH, or an absolute path. */
  program: string;
  /** The Debian package that brings it. */
  debianPackage: string;
}

export const LAB_TOOLS: LabTool[] = [
  { program: 'ip', debianPackage: 'iproute2' },
  { program: 'iptables', debianPackage: 'iptables' },
  { program: 'iptables-save', debianPackage: 'iptables' },
  { program: 'iptables-restore', debianPackage: 'iptables' },
  { program: 'conntrack', debianPackage: 'conntrack' },
  { program: NGINX_BINARY, debianPackage: 'nginx-light' },
  { program: 'curl', debianPackage: 'curl' },
  { program: 'sysctl', debianPackage: 'procps' },
  { program: 'nsenter', debianPackage: 'util-linux' },
  { program: 'openssl', debianPackage: 'openssl' },
  ...CNI_PLUGINS.map((plugin) => ({ program: `${CNI_BIN_DIR}/${plugin}`, debianPackage: 'containernetworking-plugins' })),
];

export interface HostFacts {
  platform: NodeJS.Platform;
  uid: number | null;
  pathVariable: string | undefined;
}

/** The one-line reason the lab cannot run here, or null when it can. */
export function missingPrerequisite(host: HostFacts, find: (program: string) => string | null): string | null {
  if (host.platform !== 'linux') {
    return `the lab driver needs Linux (network namespaces), this is ${host.platform}: use --driver kind`;
  }
  if (host.uid !== 0) {
    return 'the lab driver needs root (it creates network namespaces and iptables rules in them): run it as root, or use --driver kind';
  }
  const missing = LAB_TOOLS.filter((tool) => find(tool.program) === null);
  if (missing.length === 0) return null;
  const packages = [...new Set(missing.map((t) => t.debianPackage))];
  return `the lab driver needs ${missing.map((t) => `${t.program} (Debian package ${t.debianPackage})`).join(', ')}: apt-get install ${packages.join(' ')}`;
}

/**
 * The one-line reason the lab cannot run kube-proxy in `mode`, or null. ipvs needs
 * IPVS in the kernel; nftables needs `nft` (Debian package nftables) on PATH.
 */
export function proxyModeProblem(
  mode: string,
  ipvs: () => IpvsFacts,
  find: (program: string) => string | null,
): { problem: string; unsupported: boolean } | null {
  if (mode === 'ipvs') {
    const facts = ipvs();
    if (facts.procNetIpVs) return null;
    const why = facts.configLine === null ? '/proc/net/ip_vs is absent' : `/proc/config.gz: ${facts.configLine.replace(/^# /, '')}`;
    // Nothing to install: this machine cannot run it.
    return {
      unsupported: true,
      problem: `the lab cannot run kube-proxy in ipvs mode: this kernel has no IPVS (${why}, and the lab loads no modules); capture ipvs with --driver kind on a kernel with IPVS`,
    };
  }
  if (mode === 'nftables' && find('nft') === null) {
    return { unsupported: false, problem: 'kube-proxy in nftables mode needs nft on PATH (Debian package nftables): apt-get install nftables' };
  }
  if (mode !== 'iptables' && mode !== 'nftables')
    return { unsupported: true, problem: `the lab runs kube-proxy in iptables or nftables mode, not ${JSON.stringify(mode)}` };
  return null;
}

function thisHost(): HostFacts {
  return { platform: process.platform, uid: typeof process.getuid === 'function' ? process.getuid() : null, pathVariable: process.env.PATH };
}

export function preflightLab(): void {
  const host = thisHost();
  const problem = missingPrerequisite(host, (program) => findProgram(program, host.pathVariable));
  if (problem !== null) throw new PrerequisiteError(problem);
}

/**
 * Why the lab cannot run on this machine (its tools, or the Kubernetes binaries
 * in the folder the lab would use), or null: what tests and the bench ask.
 */
export function labUnavailable(env: NodeJS.ProcessEnv = process.env, release: KubeRelease = HEADLINE_RELEASE): string | null {
  const host = thisHost();
  const bin = chooseKubeBinDir(null, env, release);
  return missingPrerequisite(host, (program) => findProgram(program, host.pathVariable)) ?? kubeBinProblem(bin, missingComponents(bin.dir));
}

/** A tool asked for its version answers at once; the Kubernetes binaries take a moment to start on two cores. */
const VERSION_TIMEOUT_MS = 60_000;

const VERSION_COMMANDS: Record<string, string[]> = {
  openssl: ['openssl', 'version'],
  iptables: ['iptables', '--version'],
  conntrack: ['conntrack', '--version'],
  nginx: [NGINX_BINARY, '-v'],
  curl: ['curl', '--version'],
  iproute2: ['ip', '-V'],
};

/** Each Kubernetes component asked for its version (`etcd --version` prints several lines: the first). */
function componentVersionCommands(binDir: string): Record<string, string[]> {
  return Object.fromEntries(KUBE_COMPONENTS.filter((c) => c !== 'kubectl').map((c) => [c, [join(binDir, c), '--version']]));
}

/**
 * Versions as the tools print them: the Kubernetes components, the host's
 * tools, the CNI plugins' Debian package (the plugins themselves print
 * "version unknown"), the kernel's release (what `uname -r` prints, from the
 * same uname(2)) and the Node that runs the lab kubelet.
 */
export async function labVersions(binDir: string): Promise<Record<string, string>> {
  const commands = {
    ...componentVersionCommands(binDir),
    ...VERSION_COMMANDS,
    'cni-plugins': ['dpkg-query', '--showformat=containernetworking-plugins ${Version}', '--show', 'containernetworking-plugins'],
  };
  const entries = await Promise.all(
    Object.entries(commands).map(async ([tool, argv]) => {
      const result = await runJudged(argv, { timeoutMs: VERSION_TIMEOUT_MS }, `ask ${tool} for its version`);
      const line = firstLine(result.stdout) || firstLine(result.stderr);
      if (result.exitCode !== 0 || line === '') {
        throw new DriverError(`${argv.join(' ')} exited ${result.exitCode} without a version: ${firstLine(result.stderr)}`);
      }
      return [tool, line] as const;
    }),
  );
  return { kernel: release(), ...Object.fromEntries(entries), node: `node ${process.version}` };
}
