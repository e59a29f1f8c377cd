// Variants: several complete runs of one experiment along an axis (kube-proxy's
// mode). Which variants an experiment has, which a capture runs, what each
// variant's experiment is, and where its snapshots live. Pure: no I/O.
import { KUBE_PROXY_MODES, type Experiment, type KubeProxyMode } from './types.ts';

/** The variant of an experiment that declares none: its one run. */
export const SINGLE_RUN = null;

/**
 * The problems of an experiment's variant declaration, one line each, naming the
 * file and field (an experiment without variants has none).
 */
export function variantProblems(experiment: Experiment, file: string): string[] {
  const axis = experiment.variants;
  const problems: string[] = [];
  const stepVariants = experiment.steps.filter((s) => s.variants !== undefined);
  if (!axis) {
    for (const step of stepVariants) problems.push(`${file}: step "${step.id}": field "variants": expected none, the experiment declares no variants`);
    return problems;
  }
  if (axis.axis !== 'kubeProxyMode') problems.push(`${file}: field "experiment.variants.axis": expected "kubeProxyMode", got ${JSON.stringify(axis.axis)}`);
  if (!axis.values.length) problems.push(`${file}: field "experiment.variants.values": expected at least one kube-proxy mode`);
  for (const value of axis.values) {
    if (!(KUBE_PROXY_MODES as readonly string[]).includes(value))
      problems.push(`${file}: field "experiment.variants.values": expected ${KUBE_PROXY_MODES.join(', ')}, got ${JSON.stringify(value)}`);
  }
  if (new Set(axis.values).size !== axis.values.length) problems.push(`${file}: field "experiment.variants.values": a mode is listed twice`);
  if (axis.values[0] !== experiment.cluster.kubeProxyMode) {
    problems.push(
      `${file}: field "experiment.variants.values": expected the cluster's kubeProxyMode "${experiment.cluster.kubeProxyMode}" first (the default variant), got ${JSON.stringify(axis.values[0])}`,
    );
  }
  for (const step of stepVariants) {
    const unknown = step.variants!.filter((v) => !(axis.values as string[]).includes(v));
    if (unknown.length || !step.variants!.length) {
      problems.push(`${file}: step "${step.id}": field "variants": expected some of ${axis.values.join(', ')}, got ${JSON.stringify(step.variants)}`);
    }
  }
  return problems;
}

/** Every variant, the default first; `[null]` for an experiment with one run. */
export function variantsOf(experiment: Experiment): Array<string | null> {
  return experiment.variants ? [...experiment.variants.values] : [SINGLE_RUN];
}

export function defaultVariant(experiment: Experiment): string | null {
  return variantsOf(experiment)[0]!;
}

/**
 * The variants a capture runs: every one when none is named, else the named
 * ones in the experiment's order. An unknown name is an error listing the known.
 */
export function selectVariants(experiment: Experiment, requested: readonly string[]): Array<string | null> {
  const all = variantsOf(experiment);
  if (!requested.length) return all;
  if (!experiment.variants) throw new Error(`--variant ${requested.join(',')}: ${experiment.slug} declares no variants (it has one run)`);
  const unknown = requested.filter((v) => !(all as string[]).includes(v));
  if (unknown.length) throw new Error(`--variant ${unknown.join(',')}: ${experiment.slug} has no such variant; it has ${all.join(', ')}`);
  return all.filter((v) => requested.includes(v!));
}

/** The experiment as one variant runs it: the axis set to the variant, only the steps that variant has. */
export function experimentForVariant(experiment: Experiment, variant: string | null): Experiment {
  if (variant === null) return experiment;
  const { variants: _axis, ...rest } = experiment;
  return {
    ...rest,
    cluster: { ...experiment.cluster, kubeProxyMode: variant as KubeProxyMode },
    steps: experiment.steps.filter((s) => s.variants === undefined || s.variants.includes(variant)),
  };
}

/**
 * Where a variant's snapshots live, given the folder of the default run
 * (`<article>/snapshots`, or `--out DIR/<slug>`): the default variant there,
 * every other beside it as `<folder>.<variant>` (a slug never holds a dot).
 */
export function variantFolder(defaultFolder: string, variant: string | null, defaultName: string | null): string {
  return variant === null || variant === defaultName ? defaultFolder : `${defaultFolder}.${variant}`;
}

/** A fact (or step) of one variant's run, as comparisons and `variant=` bindings name it: `<variant>:<id>`. */
export function qualify(variant: string, id: string): string {
  return `${variant}:${id}`;
}
