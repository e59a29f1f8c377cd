// An article's Kubernetes manifests as typed objects. The kind driver applies
// the files as they are; the lab reads them to know what to build. Only the
// fields the experiments use are read; anything else in a document is ignored.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadAll } from 'js-yaml';
import type { ServiceType } from './types.ts';

export type Protocol = 'TCP' | 'UDP' | 'SCTP';

/** The Kubernetes well-known label a pod's nodeSelector pins it to a node with. */
export const HOSTNAME_LABEL = 'kubernetes.io/hostname';

interface ManifestOrigin {
  /** File the object came from, as passed to the parser. */
  file: string;
  /** Zero-based index of the YAML document inside the file. */
  document: number;
}

export interface ConfigMapManifest extends ManifestOrigin {
  kind: 'ConfigMap';
  name: string;
  namespace: string;
  data: Record<string, string>;
}

export interface ContainerPortManifest {
  name: string | null;
  containerPort: number;
  protocol: Protocol;
}

/** A container's volumeMount whose volume is a ConfigMap. */
export interface ConfigMapMountManifest {
  volume: string;
  mountPath: string;
  configMap: string;
}

export interface ContainerManifest {
  name: string;
  image: string;
  ports: ContainerPortManifest[];
  configMapMounts: ConfigMapMountManifest[];
}

export interface PodManifest extends ManifestOrigin {
  kind: 'Pod';
  name: string;
  namespace: string;
  labels: Record<string, string>;
  /** spec.nodeSelector["kubernetes.io/hostname"], or null when the pod is not pinned. */
  hostname: string | null;
  containers: ContainerManifest[];
}

export interface ServicePortManifest {
  name: string | null;
  port: number;
  /** A number, or the name of a container port. Defaults to `port`. */
  targetPort: number | string;
  protocol: Protocol;
  /** Only when the manifest asks for a specific NodePort. */
  nodePort: number | null;
}

export interface ServiceManifest extends ManifestOrigin {
  kind: 'Service';
  name: string;
  namespace: string;
  type: ServiceType;
  /** The API server defaults it to Cluster for NodePort and LoadBalancer Services. */
  externalTrafficPolicy: 'Cluster' | 'Local';
  selector: Record<string, string>;
  ports: ServicePortManifest[];
}

export type ManifestObject = ConfigMapManifest | PodManifest | ServiceManifest;

export interface ManifestSet {
  configMaps: ConfigMapManifest[];
  pods: PodManifest[];
  services: ServiceManifest[];
}

/** A manifest that cannot be used; the message names the file, document, object, field and expectation. */
export class ManifestError extends Error {
  override name = 'ManifestError';
}

const SUPPORTED_KINDS = ['ConfigMap', 'Pod', 'Service'] as const;
const PROTOCOLS: readonly Protocol[] = ['TCP', 'UDP', 'SCTP'];
const SERVICE_TYPES: readonly ServiceType[] = ['ClusterIP', 'NodePort', 'LoadBalancer'];

type Json = Record<string, unknown>;

/** Where a field lives, so every error can say it the same way. */
class Locator {
  readonly file: string;
  readonly document: number;
  objectName: string | null = null;

  constructor(file: string, document: number) {
    this.file = file;
    this.document = document;
  }

  fail(field: string, expected: string, got: unknown): never {
    const object = this.objectName === null ? '' : ` (${this.objectName})`;
    throw new ManifestError(
      `${this.file}: document ${this.document + 1}${object}: ${field}: expected ${expected}, got ${describe(got)}`,
    );
  }
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing (the field is missing)';
  if (value === null) return 'null';
  if (Array.isArray(value)) return value.length === 0 ? 'an empty list' : 'a list';
  if (typeof value === 'object') return 'a mapping';
  return JSON.stringify(value);
}

function isMapping(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function mapping(at: Locator, value: unknown, field: string): Json {
  if (!isMapping(value)) at.fail(field, 'a mapping', value);
  return value;
}

function optionalMapping(at: Locator, value: unknown, field: string): Json {
  return value === undefined || value === null ? {} : mapping(at, value, field);
}

function list(at: Locator, value: unknown, field: string): unknown[] {
  if (!Array.isArray(value)) at.fail(field, 'a list', value);
  return value;
}

function optionalList(at: Locator, value: unknown, field: string): unknown[] {
  return value === undefined || value === null ? [] : list(at, value, field);
}

function text(at: Locator, value: unknown, field: string): string {
  if (typeof value !== 'string' || value === '') at.fail(field, 'a non-empty string', value);
  return value;
}

function optionalText(at: Locator, value: unknown, field: string): string | null {
  return value === undefined || value === null ? null : text(at, value, field);
}

function portNumber(at: Locator, value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 65535) {
    at.fail(field, 'an integer from 1 to 65535', value);
  }
  return value;
}

function stringMap(at: Locator, value: unknown, field: string): Record<string, string> {
  const entries = optionalMapping(at, value, field);
  const result: Record<string, string> = {};
  for (const [key, entry] of Object.entries(entries)) {
    if (typeof entry !== 'string') at.fail(`${field}.${key}`, 'a string', entry);
    result[key] = entry;
  }
  return result;
}

function oneOf<T extends string>(at: Locator, value: unknown, field: string, allowed: readonly T[], fallback: T): T {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    at.fail(field, `one of ${allowed.join(', ')}`, value);
  }
  return value as T;
}

function parseConfigMap(at: Locator, doc: Json, origin: ManifestOrigin, name: string, namespace: string): ConfigMapManifest {
  return { kind: 'ConfigMap', ...origin, name, namespace, data: stringMap(at, doc.data, 'data') };
}

function parseContainer(at: Locator, value: unknown, field: string, volumes: Map<string, Json>): ContainerManifest {
  const container = mapping(at, value, field);
  const ports = optionalList(at, container.ports, `${field}.ports`).map((entry, i): ContainerPortManifest => {
    const portField = `${field}.ports[${i}]`;
    const port = mapping(at, entry, portField);
    return {
      name: optionalText(at, port.name, `${portField}.name`),
      containerPort: portNumber(at, port.containerPort, `${portField}.containerPort`),
      protocol: oneOf(at, port.protocol, `${portField}.protocol`, PROTOCOLS, 'TCP'),
    };
  });
  const configMapMounts: ConfigMapMountManifest[] = [];
  optionalList(at, container.volumeMounts, `${field}.volumeMounts`).forEach((entry, i) => {
    const mountField = `${field}.volumeMounts[${i}]`;
    const mount = mapping(at, entry, mountField);
    const volumeName = text(at, mount.name, `${mountField}.name`);
    const mountPath = text(at, mount.mountPath, `${mountField}.mountPath`);
    const volume = volumes.get(volumeName);
    if (volume === undefined) at.fail(`${mountField}.name`, `the name of a volume in spec.volumes`, volumeName);
    if (volume.configMap === undefined) return; // not a ConfigMap volume: nothing the experiments read
    const source = mapping(at, volume.configMap, `spec.volumes(${volumeName}).configMap`);
    configMapMounts.push({
      volume: volumeName,
      mountPath,
      configMap: text(at, source.name, `spec.volumes(${volumeName}).configMap.name`),
    });
  });
  return {
    name: text(at, container.name, `${field}.name`),
    image: text(at, container.image, `${field}.image`),
    ports,
    configMapMounts,
  };
}

function parsePod(at: Locator, doc: Json, origin: ManifestOrigin, name: string, namespace: string, labels: Record<string, string>): PodManifest {
  const spec = mapping(at, doc.spec, 'spec');
  const nodeSelector = stringMap(at, spec.nodeSelector, 'spec.nodeSelector');
  const volumes = new Map<string, Json>();
  optionalList(at, spec.volumes, 'spec.volumes').forEach((entry, i) => {
    const volume = mapping(at, entry, `spec.volumes[${i}]`);
    volumes.set(text(at, volume.name, `spec.volumes[${i}].name`), volume);
  });
  const containers = list(at, spec.containers, 'spec.containers');
  if (containers.length === 0) at.fail('spec.containers', 'at least one container', containers);
  return {
    kind: 'Pod',
    ...origin,
    name,
    namespace,
    labels,
    hostname: nodeSelector[HOSTNAME_LABEL] ?? null,
    containers: containers.map((entry, i) => parseContainer(at, entry, `spec.containers[${i}]`, volumes)),
  };
}

function parseService(at: Locator, doc: Json, origin: ManifestOrigin, name: string, namespace: string): ServiceManifest {
  const spec = mapping(at, doc.spec, 'spec');
  const type = oneOf(at, spec.type, 'spec.type', SERVICE_TYPES, 'ClusterIP');
  const externallyAccessible = type !== 'ClusterIP';
  const policy = spec.externalTrafficPolicy;
  if (!externallyAccessible && policy !== undefined && policy !== null) {
    // The API server refuses it too: the policy only means something for NodePorts and load balancers.
    at.fail('spec.externalTrafficPolicy', `no value for a Service of type ${type}`, policy);
  }
  const rawPorts = list(at, spec.ports, 'spec.ports');
  if (rawPorts.length === 0) at.fail('spec.ports', 'at least one port', rawPorts);
  const ports = rawPorts.map((entry, i): ServicePortManifest => {
    const field = `spec.ports[${i}]`;
    const port = mapping(at, entry, field);
    const number = portNumber(at, port.port, `${field}.port`);
    const target = port.targetPort;
    let targetPort: number | string = number;
    if (typeof target === 'string') targetPort = text(at, target, `${field}.targetPort`);
    else if (target !== undefined && target !== null) targetPort = portNumber(at, target, `${field}.targetPort`);
    const nodePort = port.nodePort === undefined || port.nodePort === null ? null : portNumber(at, port.nodePort, `${field}.nodePort`);
    if (nodePort !== null && !externallyAccessible) at.fail(`${field}.nodePort`, `no value for a Service of type ${type}`, nodePort);
    const portName = optionalText(at, port.name, `${field}.name`);
    if (rawPorts.length > 1 && portName === null) at.fail(`${field}.name`, 'a name (a Service with several ports names each)', port.name);
    return {
      name: portName,
      port: number,
      targetPort,
      protocol: oneOf(at, port.protocol, `${field}.protocol`, PROTOCOLS, 'TCP'),
      nodePort,
    };
  });
  return {
    kind: 'Service',
    ...origin,
    name,
    namespace,
    type,
    externalTrafficPolicy: oneOf(at, policy, 'spec.externalTrafficPolicy', ['Cluster', 'Local'] as const, 'Cluster'),
    selector: stringMap(at, spec.selector, 'spec.selector'),
    ports,
  };
}

function parseDocument(doc: unknown, file: string, document: number): ManifestObject {
  const at = new Locator(file, document);
  const object = mapping(at, doc, '(document)');
  const kind = object.kind;
  if (typeof kind !== 'string' || !(SUPPORTED_KINDS as readonly string[]).includes(kind)) {
    at.fail('kind', `one of ${SUPPORTED_KINDS.join(', ')}`, kind);
  }
  if (object.apiVersion !== 'v1') at.fail('apiVersion', `"v1" for a ${kind}`, object.apiVersion);
  const metadata = mapping(at, object.metadata, 'metadata');
  const name = text(at, metadata.name, 'metadata.name');
  at.objectName = `${kind} ${name}`;
  // kubectl apply puts an object without a namespace into the context's, which is "default" here.
  const namespace = optionalText(at, metadata.namespace, 'metadata.namespace') ?? 'default';
  const labels = stringMap(at, metadata.labels, 'metadata.labels');
  const origin = { file, document };
  if (kind === 'ConfigMap') return parseConfigMap(at, object, origin, name, namespace);
  if (kind === 'Pod') return parsePod(at, object, origin, name, namespace, labels);
  return parseService(at, object, origin, name, namespace);
}

/** Parses one manifest file's text (several YAML documents). `file` is only used in messages. */
export function parseManifests(source: string, file: string): ManifestObject[] {
  let documents: unknown[];
  try {
    documents = loadAll(source, { filename: file });
  } catch (error) {
    throw new ManifestError(`${file}: not valid YAML: ${error instanceof Error ? error.message : String(error)}`);
  }
  const objects: ManifestObject[] = [];
  documents.forEach((doc, index) => {
    if (doc === null || doc === undefined) return; // an empty document, e.g. after a trailing `---`
    objects.push(parseDocument(doc, file, index));
  });
  return objects;
}

/** Groups objects by kind; two objects of the same kind, namespace and name are an error. */
export function collectManifests(objects: ManifestObject[]): ManifestSet {
  const seen = new Map<string, ManifestObject>();
  for (const object of objects) {
    const key = `${object.kind}/${object.namespace}/${object.name}`;
    const earlier = seen.get(key);
    if (earlier !== undefined) {
      throw new ManifestError(
        `${object.file}: document ${object.document + 1} (${object.kind} ${object.name}): metadata.name: expected a name not used before in namespace ${object.namespace}, got ${JSON.stringify(object.name)} (also in ${earlier.file}, document ${earlier.document + 1})`,
      );
    }
    seen.set(key, object);
  }
  return {
    configMaps: objects.filter((o): o is ConfigMapManifest => o.kind === 'ConfigMap'),
    pods: objects.filter((o): o is PodManifest => o.kind === 'Pod'),
    services: objects.filter((o): o is ServiceManifest => o.kind === 'Service'),
  };
}

/** Reads an experiment's manifest files (paths relative to the article folder), in order. */
export function loadManifests(articleDir: string, files: string[]): ManifestSet {
  const objects: ManifestObject[] = [];
  for (const file of files) {
    let source: string;
    try {
      source = readFileSync(join(articleDir, file), 'utf8');
    } catch (error) {
      throw new ManifestError(`${file}: cannot read it in ${articleDir}: ${error instanceof Error ? error.message : String(error)}`);
    }
    objects.push(...parseManifests(source, file));
  }
  return collectManifests(objects);
}
