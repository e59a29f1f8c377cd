// Interface strings of the English pages. Placeholders in braces are filled by fill() in ui.ts.
import type { UiStrings } from './zh.ts';

export const en: UiStrings = {
  languageName: 'English',
  skipToContent: 'Skip to content',
  siteNavLabel: 'Site',
  switchLanguageLabel: 'Switch language: ',
  readInThisLanguage: 'Read in English',
  seriesHeading: '{series} series',
  articleListLabel: 'Articles, newest first',
  publishedOn: 'Published',
  measuredOn: 'measured',
  notYetMeasured: 'not yet measured',
  seriesNavLabel: 'More in this series',
  previousInSeries: 'Previous',
  nextInSeries: 'Next',
  fallbackNotice: 'This article has not been translated into English yet; the Chinese original follows.',
  fallbackOriginal: 'The Chinese page',
  fallbackBadge: 'Chinese',
  notFoundTitle: 'Page not found',
  notFoundBody: 'There is no page at this address: the link may be mistyped, or the article may have moved.',
  notFoundBack: 'Back to the home page',
  rssFeed: 'RSS feed',
  rssFeedTitle: '{site}: all articles',
  filingLabel: 'Website filing: ',
  footerNote: 'Every measured number comes from the raw snapshots of a real run.',
};
