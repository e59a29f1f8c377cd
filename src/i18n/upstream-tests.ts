// The words of the upstream-tests block of an evidence page, per language.
import type { Lang } from '../site.config.ts';

const zh = {
  test: '上游测试',
  result: '结果',
  states: { passed: '通过', failed: '失败', skipped: '跳过', panicked: '崩溃', interrupted: '被中断', aborted: '中止', timedout: '超时' } as Record<
    string,
    string
  >,
  leftOut: '没有运行的测试：',
  standIn:
    '这些测试用的 agnhost 镜像在本机从该版本模块里的源码构建，镜像名与上游相同；上游的镜像基于 Alpine，这里换成了最小化的 Debian 和 Debian 的同名工具，并且没有装入 CoreDNS 和伪镜像仓库的镜像（这里的测试都用不到）。',
  record: '这次运行的记录（run.yaml）',
  message: 'ginkgo 给出的信息',
  otherReleases: '同样的测试在本文测过的其他版本上：',
  releaseSeparator: '：',
  allPassed: '上面的测试同样全部通过',
  notPassed: '没有通过的：',
  listSeparator: '、',
};

const en: typeof zh = {
  test: 'Upstream test',
  result: 'Result',
  states: {
    passed: 'passed',
    failed: 'failed',
    skipped: 'skipped',
    panicked: 'panicked',
    interrupted: 'interrupted',
    aborted: 'aborted',
    timedout: 'timed out',
  },
  leftOut: 'Not run:',
  standIn:
    'The agnhost image these tests run was built here from its source in the release’s module, under upstream’s name; upstream builds it on Alpine, this one on a minimal Debian with Debian’s packages of the same tools, and without CoreDNS and the fake registry’s images (none of these tests uses them).',
  record: 'The run’s record (run.yaml)',
  message: 'What ginkgo said',
  otherReleases: 'The same tests on the other releases the article was measured on:',
  releaseSeparator: ': ',
  allPassed: 'every test above passed too',
  notPassed: 'not passed: ',
  listSeparator: ', ',
};

export const upstreamTestStrings = (lang: Lang): typeof zh => (lang === 'zh' ? zh : en);
