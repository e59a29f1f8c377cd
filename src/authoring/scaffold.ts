// `npm run new -- <slug>`: the files of a new article, each saying what it is
// for. Pure: the script writes what this returns. The article builds at once in
// a draft (`npm run build:draft`), its facts shown as not yet measured; a normal
// build asks for a capture first.

import { HEADLINE_RELEASE } from '../experiment/kubernetes.ts';
import { SLUG_PATTERN, seriesNumberOf, shownSlug, slugRuleProblem } from './slug.ts';

export interface ScaffoldFile {
  /** Relative to the article's folder. */
  path: string;
  content: string;
}

export { SLUG_PATTERN, SLUG_MAX_LENGTH } from './slug.ts';

const USAGE = 'usage: npm run new -- <slug>   (e.g. 078-topology-aware-routing: the series number, then words in lowercase and dashes)';

/** The problem with a slug in one line, or null: the loader's rule (slug.ts). A hostile slug is quoted JSON-escaped and cut, never as typed. */
export function slugProblem(slug: string | undefined): string | null {
  if (!slug) return USAGE;
  const problem = slugRuleProblem(slug);
  return problem === null ? null : `slug ${shownSlug(slug)}: ${problem}`;
}

/**
 * The problem with making the article `slug` beside the articles there are, in one line, or null: the
 * slug's rule, then the series number, which the build refuses when another article's front matter has
 * it (src/i18n/editions.ts). `taken`: series number -> the article that has it (the scaffold's series).
 */
export function newArticleProblem(slug: string | undefined, taken: ReadonlyMap<number, string>): string | null {
  const problem = slugProblem(slug);
  if (problem) return problem;
  const owner = taken.get(seriesNumberOf(slug!));
  if (owner !== undefined)
    return `slug ${shownSlug(slug!)}: series number ${SLUG_PATTERN.exec(slug!)![1]} is taken by the article ${shownSlug(owner)}; expected a number of its own`;
  return null;
}

/** The series the scaffold writes into the front matter. */
export const SCAFFOLD_SERIES = 'Kubernetes';

export function scaffoldFiles(slug: string, today: string): ScaffoldFile[] {
  const number = seriesNumberOf(slug);
  const files: ScaffoldFile[] = [];
  const add = (path: string, content: string) => files.push({ path, content: `${content.trim()}\n` });

  add(
    'article.ts',
    `
// The article's one definition: what runs (the experiment), what the page binds
// (facts, one line each: src/evidence/fact-kit.ts), what the prose asserts
// (claims, re-checked on every build) and each step's measured line. Every run
// also gives node./pod./service./cluster./version. facts from run.yaml and each
// step's .rc and .seconds (src/evidence/run-facts.ts). A fact id the definition
// does not declare, read anywhere here, fails the type check (npm run check).
// Capture it with: npm run capture -- ${slug} (kind), then with --driver lab (the lab).
import { defineArticle, kubernetesSeries, measured, part, declared, stdout, exec, curlArgv } from '../../../src/authoring/article.ts';

// Each step in the order it runs, with the facts read from its output and its measured line
// (<Measured steps="...">), in both languages: values only as {fact.id} placeholders, a typed digit is refused.
// Values the run allocates (node addresses, NodePorts) come through \`t\`.
const runs = measured(
  part(
    exec('request', 'control-plane', 'one request to the NodePort on worker', (t) => curlArgv(\`http://\${t.ip('worker')}:\${t.nodePort('app')}/\`, { maxTime: '3' })),
    // What the pod answered: its own name (the container's hostname), the one line on stdout.
    { 'request.answer': stdout('request', /^(\\S+)$/m) },
    {
      zh: '控制面 → worker {node.worker.ip}:{service.app.nodePort}：回答 {request.answer}，rc={request.rc}，用时 {request.seconds} 秒',
      en: 'Control-plane to worker at {node.worker.ip}:{service.app.nodePort}: answered {request.answer}; curl exited {request.rc} after {request.seconds} s',
    },
  ),
);

export default defineArticle({
  // The series' three-node kind cluster, its client, stand-ins, environments (kind, the headline, and the lab)
  // and releases (src/authoring/series.ts), with what is this article's own over them.
  experiment: kubernetesSeries({
    slug: '${slug}',
    // The newest release first; remove this line to measure every release the series declares.
    kubernetes: ['${HEADLINE_RELEASE.minor}'],
    // Anything the API server accepts; the lab runs the pods the scheduler binds (nginx images only).
    manifests: ['manifests/app.yaml'],
    steps: runs.steps,
  }),
  facts: {
    // Declared, not measured: read from the manifest, marked as such on the page.
    'declared.app.replicas': declared('manifests/app.yaml', 'Deployment/app', 'spec.replicas'),
    ...runs.facts,
  },
  // A passage names the claims it rests on (<Claim ids="...">); a capture that breaks one fails
  // the build (npm run build:draft builds anyway and flags the passage).
  claims: [
    {
      id: 'request-answered',
      zh: '经 worker 的 NodePort 发出的请求得到了回答',
      en: 'The request through worker\\'s NodePort was answered',
      holds: (v) => v('request.rc') === '0',
    },
  ],
  lines: runs.lines,
});
`,
  );

  add(
    'manifests/app.yaml',
    `
# The objects of the experiment, applied in order by kubectl. A number written
# here can be bound in the prose as a declared fact (article.ts, declared()).
apiVersion: v1
kind: ConfigMap
metadata:
  name: app-nginx
  namespace: default
data:
  default.conf: |
    server {
      listen 80;
      location / {
        default_type text/plain;
        return 200 "$hostname\\n";
      }
    }
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: app
  namespace: default
spec:
  replicas: 2
  selector:
    matchLabels:
      app: app
  template:
    metadata:
      labels:
        app: app
    spec:
      containers:
        - name: nginx
          image: nginx:1.27-alpine
          ports:
            - containerPort: 80
          readinessProbe:
            httpGet:
              path: /
              port: 80
            periodSeconds: 1
          volumeMounts:
            - name: conf
              mountPath: /etc/nginx/conf.d
      volumes:
        - name: conf
          configMap:
            name: app-nginx
---
apiVersion: v1
kind: Service
metadata:
  name: app
  namespace: default
spec:
  type: NodePort
  externalTrafficPolicy: Cluster
  selector:
    app: app
  ports:
    - port: 80
      targetPort: 80
`,
  );

  const frontmatter = (lang: 'zh' | 'en', title: string, summary: string) => `---
title: ${title}
summary: ${summary}
date: ${today}
lang: ${lang}
series:
  name: ${SCAFFOLD_SERIES}
  number: ${number}
---`;

  add(
    'zh.mdx',
    `
${frontmatter('zh', '新文章（标题待定）', '一句话说明这篇文章测了什么、发现了什么。')}

{/* 正文。测得的值用 <Fact id="..." /> 绑定；清单里声明的值用声明事实（article.ts 里的 declared）；
    其他不是测量结果的数字（标准编号、序数、顺带提到的版本）放进 <NotMeasured>…</NotMeasured>。
    直接写进正文的数字会让构建失败。 */}

这里写引子：问题是什么，实验怎么回答它。实验里的 Deployment 声明了 <Fact id="declared.app.replicas" /> 个副本。

## 实测

<Measured steps="request" />

<Claim ids="request-answered">

经 worker 的 NodePort（<Fact id="service.app.nodePort" />）发出的请求，得到的回答是 <Fact id="request.answer" />。

</Claim>

## 别的环境

同一个实验也在命名空间实验环境里跑过。<EvidenceLink />

## 本文用到的工具与边界

本文的每个数字都来自运行 <Fact id="run.id" />：

<RunEnvironment />

<Provenance />

<RunLimits>

- 这里列出本文没有验证的内容。

</RunLimits>
`,
  );

  add(
    'en.mdx',
    `
${frontmatter('en', 'A new article (title to come)', 'One sentence on what this article measured and what it found.')}

{/* The prose. Measured values are bound with <Fact id="..." />; values the manifests declare are declared
    facts (declared() in article.ts); any other number that is not a measurement (a standard, an ordinal,
    a version named in passing) goes inside <NotMeasured>…</NotMeasured>. A digit typed into the prose fails the build. */}

The introduction goes here: the question, and how the experiment answers it. The experiment's Deployment declares <Fact id="declared.app.replicas" /> replicas.

## Measured

<Measured steps="request" />

<Claim ids="request-answered">

A request through worker's NodePort (<Fact id="service.app.nodePort" />) was answered by <Fact id="request.answer" />.

</Claim>

## Another environment

The same experiment also ran in the namespace lab. <EvidenceLink />

## Tools and limits

Every number in this article comes from run <Fact id="run.id" />:

<RunEnvironment />

<Provenance />

<RunLimits>

- What this article did not verify goes here.

</RunLimits>
`,
  );
  // The evidence page: every claim in every run, and each run's record.
  add(
    'evidence.zh.mdx',
    `---
lang: zh
---

## 每条论断在每次运行里

<ClaimMatrix />

## 各次运行的记录

<Provenance />
`,
  );
  add(
    'evidence.en.mdx',
    `---
lang: en
---

## Each claim in each run

<ClaimMatrix />

## The record of each run

<Provenance />
`,
  );
  return files;
}
