// What a stand-in read a value from (run.yaml's environment.standIn[].from), in the
// page's language. The capture writes it in English only, and a committed snapshot
// never changes, so a Chinese page translates the sources it knows here, at render
// time. One it does not know is shown as the run wrote it, said to be untranslated.
import type { Lang } from '../site.config.ts';

/** A piece of a source's words: text, or a name to set as code (a path, a field, a command). */
export interface SourcePiece {
  text: string;
  code: boolean;
}

/** The sources the capture writes (src/capture/kind/kindnet-stand-in.ts, src/capture/lab/kubelet/decisions.ts); `code` spans in backticks. */
const ZH: ReadonlyArray<{ from: RegExp; zh: (match: RegExpExecArray) => string }> = [
  {
    from: /^the Node's spec\.podCIDR \(kube-controller-manager's node IPAM\)$/,
    zh: () => 'Node 对象的 `spec.podCIDR`（由 kube-controller-manager 的节点 IPAM 分配）',
  },
  { from: /^the other Nodes' spec\.podCIDR and InternalIP$/, zh: () => '其他 Node 对象的 `spec.podCIDR` 和 `InternalIP`' },
  { from: /^\/sys\/class\/net\/eth0\/mtu on the node$/, zh: () => '节点上的 `/sys/class/net/eth0/mtu`' },
  { from: /^os\.cpus\(\)$/, zh: () => 'Node.js 的 `os.cpus()`' },
  { from: /^\/proc\/meminfo MemTotal$/, zh: () => '`/proc/meminfo` 里的 `MemTotal`' },
  { from: /^statfs of the node's state folder$/, zh: () => '节点状态目录所在文件系统的 `statfs`' },
  { from: /^ip -j address show \(the interface with the node's InternalIP\)$/, zh: () => '`ip -j address show`（持有节点 InternalIP 的那块网卡）' },
  { from: /^(\S+) -v; dpkg-query --search, --show$/, zh: (m) => `\`${m[1]} -v\` 的输出，以及 \`dpkg-query --search\` 和 \`--show\`` },
  { from: /^the pod's spec as the API server returned it$/, zh: () => 'API server 返回的 Pod spec' },
];

/** Backticked spans of a template as code pieces, the rest as text. */
function pieces(template: string): SourcePiece[] {
  return template
    .split('`')
    .map((text, i) => ({ text, code: i % 2 === 1 }))
    .filter((p) => p.text !== '');
}

/**
 * A source in `lang`'s words: English is the run's own text (undefined: show it as bound);
 * Chinese is its translation, or undefined for a source this table does not know yet.
 */
export function standInSource(from: string, lang: Lang): SourcePiece[] | undefined {
  if (lang === 'en') return undefined;
  for (const known of ZH) {
    const match = known.from.exec(from);
    if (match) return pieces(known.zh(match));
  }
  return undefined;
}
