// The snapshot format, once: capture writes it, evidence reads and validates it.
// Raw values only; nothing here is formatted for a page.
import { z } from 'zod';
import { DRIVER_NAMES } from '../experiment/drivers.ts';

export const SNAPSHOT_SCHEMA_VERSION = 1;

/** Per stream: what a snapshot keeps at most (1 MiB); the rest is counted and hashed, not stored (raw-stream.ts). */
export const STREAM_LIMIT_BYTES = 1024 * 1024;

const isoDate = z.iso.datetime({ offset: true });
const ipv4 = z.ipv4();
const cidr = z.cidrv4();
const port = z.number().int().min(1).max(65535);

/**
 * A sentence in both languages of the site (the driver's words about itself).
 * Older snapshots hold one English string here: say so, naming the field.
 */
const localized = z
  .union([z.string(), z.strictObject({ zh: z.string().min(1), en: z.string().min(1) })])
  .superRefine((value, ctx) => {
    if (typeof value === 'string') {
      ctx.addIssue({
        code: 'custom',
        input: value,
        message:
          'a mapping { zh: ..., en: ... } (the run is described in both languages; this is the older one-string form: re-capture, or translate it by hand)',
      });
    }
  })
  .transform((value) => value as { zh: string; en: string });

export const nodeSchema = z.strictObject({
  name: z.string().min(1),
  k8sName: z.string().min(1),
  role: z.enum(['control-plane', 'worker']),
  internalIP: ipv4,
  podCIDR: cidr,
});

export const podSchema = z.strictObject({
  name: z.string().min(1),
  namespace: z.string().min(1),
  node: z.string().min(1),
  ip: ipv4,
  image: z.string().min(1),
});

export const serviceSchema = z.strictObject({
  name: z.string().min(1),
  namespace: z.string().min(1),
  type: z.enum(['ClusterIP', 'NodePort', 'LoadBalancer']),
  /** null for a ClusterIP Service, which the API server gives none. */
  externalTrafficPolicy: z.enum(['Cluster', 'Local']).nullable(),
  /** Absent in runs captured before the capture recorded it. */
  internalTrafficPolicy: z.enum(['Cluster', 'Local']).optional(),
  clusterIP: ipv4,
  port,
  targetPort: port,
  /** null for a ClusterIP Service. */
  nodePort: port.nullable(),
  healthCheckNodePort: port.nullable(),
});

/** A value a stand-in decided or read, with the nodes it gave it for (run.yaml's environment.standIn). */
export const standInDecisionSchema = z.strictObject({
  field: z.string().min(1),
  value: z.string().min(1),
  source: z.enum(['stand-in', 'read']),
  /** What it was read from, for `read`. */
  from: z.string().min(1).optional(),
  zh: z.string().min(1),
  en: z.string().min(1),
  nodes: z.array(z.string().min(1)).min(1),
});

/**
 * A step id, the one rule for every id that becomes a file name (`<id>.yaml` beside run.yaml):
 * the article's definition, run.yaml's step list and each step's file all hold to it, so no id
 * can name a file outside its run's folder (`..`, `/`) or one too long for the filesystem.
 */
export const STEP_ID_RULE = "lowercase letters, digits and dashes, starting with a letter or digit, at most 64 characters (it names the step's file)";
export const stepIdSchema = z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/, STEP_ID_RULE);

export const runSchema = z.strictObject({
  schema: z.literal(SNAPSHOT_SCHEMA_VERSION),
  slug: z.string().min(1),
  // It names folders (`.snapshots.previous-<run id>`, a merge's staging): at most 100 characters, within a name's 255 bytes.
  runId: z.string().regex(/^[0-9A-Za-z-]{1,100}$/, 'letters, digits and dashes, at most 100 characters (it names folders)'),
  driver: z.enum(DRIVER_NAMES),
  /** What the environment is, what it stands in for, and what it is not (a lab is not a cluster), in both languages. */
  environment: z.strictObject({
    summary: localized,
    standsFor: localized,
    /** What this run was not or did not verify, the largest limit first. */
    limits: z.array(localized).min(1),
    /**
     * What a stand-in (the lab kubelet) decided or read for the API and the pods, merged
     * over the nodes: the page shows each value with its source. Absent when nothing
     * stood in (kind).
     */
    standIn: z.array(standInDecisionSchema).optional(),
  }),
  startedAt: isoDate,
  finishedAt: isoDate,
  durationMs: z.number().nonnegative(),
  git: z.strictObject({ commit: z.string().nullable(), dirty: z.boolean() }),
  host: z.strictObject({ os: z.string(), arch: z.string(), kernel: z.string() }),
  /** Tool name -> the version the tool reported about itself. */
  versions: z.record(z.string(), z.string()),
  cluster: z.strictObject({
    name: z.string().min(1),
    kubeProxyMode: z.string().min(1),
    podSubnet: cidr,
    serviceSubnet: cidr,
  }),
  nodes: z.array(nodeSchema).min(1),
  pods: z.array(podSchema),
  services: z.array(serviceSchema),
  /** Step ids in the order they ran; each has `<id>.yaml` beside run.yaml. At least one, but in a verify's run (load.ts). */
  steps: z.array(stepIdSchema),
});

const streamEncoding = z.literal('base64');
const streamCut = z.strictObject({
  bytes: z.number().int().positive(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/, '64 lowercase hex digits'),
});

export const stepSchema = z
  .strictObject({
    id: stepIdSchema,
    kind: z.enum(['exec', 'delete-pod', 'recreate-pod']),
    /** Logical node the command ran on, or `host` for actions run by the driver. */
    node: z.string().min(1),
    /** `<namespace>/<name>` of the pod in whose network namespace the command ran, on `node`. */
    pod: z
      .string()
      .regex(/^[a-z0-9-]+\/[a-z0-9.-]+$/, 'namespace/name')
      .optional(),
    title: z.string(),
    /** The command as the experiment states it, inside the node. */
    command: z.array(z.string()).min(1),
    /** The argv exactly as executed on the capturing machine. */
    argv: z.array(z.string()).min(1),
    exitCode: z.number().int(),
    /** Set when the step reached its time limit and declared that a result (onTimeout: 'record'). */
    timedOut: z.literal(true).optional(),
    startedAt: isoDate,
    durationMs: z.number().nonnegative(),
    /**
     * The wait, measured, until a delete-pod or recreate-pod step took effect: the probe (kube-proxy's
     * health check, or a client's own step run again), how many polls it took, the time from the
     * delete's return or from the API's Ready to the answer that showed it, and that answer (with
     * the probe's exit code when the probe is a client's step).
     */
    settle: z
      .strictObject({
        command: z.array(z.string()).min(1),
        polls: z.number().int().positive(),
        afterDeleteMs: z.number().nonnegative().optional(),
        /** A client's wait polls from the delete's start: kubectl returns only once the pod is gone. */
        afterDeleteStartMs: z.number().nonnegative().optional(),
        afterReadyMs: z.number().nonnegative().optional(),
        /**
         * A client's wait, from the same start: when the last probe that still gave the old answer
         * began (0 when the first probe already gave the new one). The change came between it and
         * the wait's end: that bracket is the measurement's resolution.
         */
        lastUnchangedMs: z.number().nonnegative().optional(),
        answer: z.string(),
        exitCode: z.number().int().optional(),
      })
      .refine(
        (s) => [s.afterDeleteMs, s.afterDeleteStartMs, s.afterReadyMs].filter((ms) => ms !== undefined).length === 1,
        'expected exactly one of afterDeleteMs, afterDeleteStartMs and afterReadyMs',
      )
      .optional(),
    stdout: z.string(),
    stderr: z.string(),
    /** Set when the stream was not valid UTF-8: the field above holds its bytes in base64 (raw-stream.ts). */
    stdoutEncoding: streamEncoding.optional(),
    stderrEncoding: streamEncoding.optional(),
    /** Set when the stream was longer than the capture keeps: the field above holds its start; these describe the whole. */
    stdoutCut: streamCut.optional(),
    stderrCut: streamCut.optional(),
  })
  .superRefine((step, ctx) => {
    // A stream keeps at most STREAM_LIMIT_BYTES, as the capture stores it (raw-stream.ts): a longer one
    // keeps its start and says its whole size and hash in <stream>Cut. A run from elsewhere holds to it too.
    for (const name of ['stdout', 'stderr'] as const) {
      const kept = Buffer.byteLength(step[name], step[`${name}Encoding`] === 'base64' ? 'base64' : 'utf8');
      const cut = step[`${name}Cut`];
      if (kept > STREAM_LIMIT_BYTES)
        ctx.addIssue({
          code: 'custom',
          path: [name],
          input: `${kept} bytes`,
          message: `at most ${STREAM_LIMIT_BYTES} bytes (1 MiB), as a capture keeps a stream: a longer one keeps its start and its whole size and SHA-256 in ${name}Cut`,
        });
      else if (cut && cut.bytes <= kept)
        ctx.addIssue({
          code: 'custom',
          path: [`${name}Cut`, 'bytes'],
          input: cut.bytes,
          message: `more bytes than the ${kept} ${name} keeps (a cut stream was longer than what it kept)`,
        });
    }
  });

export type RunSnapshot = z.infer<typeof runSchema>;
export type StepSnapshot = z.infer<typeof stepSchema>;
export type StandInDecision = z.infer<typeof standInDecisionSchema>;
