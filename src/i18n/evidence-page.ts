// The words of an article's evidence page and of the one sentence in the
// article that points to it, in both languages.
import type { Lang } from '../site.config.ts';

const zh = {
  /** The page's heading, before the article's title. */
  heading: '证据',
  intro: '本页列出本文每条论断在每次运行里的结果、各次运行的环境和记录，以及数字为什么在运行之间不同。',
  backToArticle: '回到文章',
  /** The run badge's link to the evidence page. */
  badgeEvidence: '其他运行与证据',
  /** A run named by its environment and, with variants, kube-proxy's mode. */
  runName: { environment: '{environment}', both: '{environment}的 {variant} 模式' },
  /** Every claim held wherever else it applies: {runs} is the list of those runs. */
  reachAll: '每条论断在其余运行里也都成立（不适用的除外）：{runs}。',
  /** Some claim broke somewhere: {claim} its statement, {runs} where. */
  /** Some claim broke elsewhere: the others held. */
  reachRest: '其余论断在其余运行里都成立（不适用的除外）：{runs}。',
  reachBroken: '论断“{claim}”在{runs}里不成立。',
  reachNone: '本文只在一次运行里测过。',
  reachLink: '逐次的结果和各次运行的记录，见{link}。',
  reachLinkText: '证据页',
  listLast: '和',
  /** A run on another Kubernetes version: {name} as runName names it. */
  runOnVersion: '{name}（Kubernetes {version}）',
  /** Between the last two versions of a list: spaced, as Latin beside Chinese is. */
  versionsLast: ' 和 ',
  /** Measured on several versions: {versions} is the list of them, each bound to its own run. */
  reachVersionsAll: '每条论断在 Kubernetes {versions} 的每次运行里都成立（不适用的除外）。',
  reachVersionsRest: '其余论断在 Kubernetes {versions} 的每次运行里都成立（不适用的除外）。',
  /** Versions declared and not measured. */
  reachVersionsNotMeasured: 'Kubernetes {versions} 上还没有实测。',
  /** The page's link-preview card: its title, and a row each for the claims, versions and environments. */
  cardTitle: '证据：{title}',
  cardClaims: '条论断在全部 {runs} 次运行中都成立（不适用的除外）',
  cardBroken: '条论断在某些运行中不成立：见证据页',
  cardVersions: '个 Kubernetes 版本：{versions}',
  cardEnvironments: '个环境：{environments}；kube-proxy 模式：{modes}',
  /** The card's foot: its figures are the build's judgement of the runs and their count, not measurements. */
  cardFooter: '这些是对各次运行的判定和计数，每次构建都对照原始快照重新判定。',
};

const en: typeof zh = {
  heading: 'Evidence',
  intro: 'This page shows each claim of the article in every run, each run’s environment and record, and why the numbers differ between runs.',
  backToArticle: 'Back to the article',
  badgeEvidence: 'Other runs and evidence',
  runName: { environment: '{environment}', both: '{environment} with kube-proxy in {variant} mode' },
  reachAll: 'Every claim also held in the other runs, wherever it applies: {runs}.',
  reachRest: 'The other claims held in the other runs, wherever they apply: {runs}.',
  reachBroken: 'The claim “{claim}” broke in {runs}.',
  reachNone: 'The article was measured in one run only.',
  reachLink: 'Each claim in each run, and each run’s record, are on the {link}.',
  reachLinkText: 'evidence page',
  listLast: ' and ',
  runOnVersion: '{name} on Kubernetes {version}',
  versionsLast: ' and ',
  reachVersionsAll: 'Every claim held on Kubernetes {versions}, in every run it applies to.',
  reachVersionsRest: 'The other claims held on Kubernetes {versions}, in every run they apply to.',
  reachVersionsNotMeasured: 'Not yet measured on Kubernetes {versions}.',
  cardTitle: 'Evidence: {title}',
  cardClaims: 'claims held in all {runs} runs, wherever they apply',
  cardBroken: 'claims broke in some run: see the evidence page',
  cardVersions: 'Kubernetes versions: {versions}',
  cardEnvironments: 'environments: {environments}; kube-proxy modes: {modes}',
  cardFooter: 'Judgements and counts of the runs, made again on every build from their raw snapshots.',
};

export type EvidencePageStrings = typeof zh;

export function evidencePageStrings(lang: Lang): EvidencePageStrings {
  return lang === 'en' ? en : zh;
}
