// Interface strings of the Chinese pages. Placeholders in braces are filled by fill() in ui.ts.
export const zh = {
  languageName: '中文',
  skipToContent: '跳到正文',
  siteNavLabel: '站点',
  switchLanguageLabel: '切换语言：',
  readInThisLanguage: '阅读中文版',
  seriesHeading: '{series} 系列',
  articleListLabel: '文章列表，按发布时间从新到旧',
  publishedOn: '发布于',
  measuredOn: '实测于',
  notYetMeasured: '尚未实测',
  seriesNavLabel: '同系列的其他文章',
  previousInSeries: '上一篇',
  nextInSeries: '下一篇',
  fallbackNotice: '这篇文章还没有中文版，下面是英文原文。',
  fallbackOriginal: '英文原文页面',
  fallbackBadge: '英文',
  notFoundTitle: '找不到这个页面',
  notFoundBody: '这个地址上没有页面：链接可能写错了，或者文章换了地址。',
  notFoundBack: '回到首页',
  rssFeed: 'RSS 订阅',
  rssFeedTitle: '{site}：全部文章',
  filingLabel: '备案信息：',
  footerNote: '每个实测数字都来自一次真实运行的原始快照。',
};

export type UiStrings = typeof zh;
