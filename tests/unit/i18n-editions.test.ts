import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildEditions, listingFor, parseEntryId, seriesNeighbours, type ArticleFile } from '../../src/i18n/editions.ts';
import { articleFrontmatterSchema } from '../../src/i18n/frontmatter.ts';
import type { Lang } from '../../src/site.config.ts';

function file(slug: string, lang: Lang, number: number, date = '2026-12-02', extra: Partial<ArticleFile['data']> = {}): ArticleFile {
  return {
    id: `${slug}/${lang}`,
    filePath: `content/articles/${slug}/${lang}.mdx`,
    data: {
      title: `${slug} (${lang})`,
      summary: 's',
      date: new Date(`${date}T00:00:00Z`),
      lang,
      series: { name: 'Kubernetes', number },
      ...extra,
    },
  };
}

test('an article written in both languages gets two pages, each showing its own text', () => {
  const zh = file('074-etp', 'zh', 74);
  const en = file('074-etp', 'en', 74);
  const editions = buildEditions([en, zh]);
  assert.deepEqual(
    editions.map((e) => [e.slug, e.lang, e.contentLang, e.isFallback]),
    [
      ['074-etp', 'zh', 'zh', false],
      ['074-etp', 'en', 'en', false],
    ],
  );
  assert.equal(editions[0]!.entry, zh);
  assert.equal(editions[1]!.entry, en);
  assert.deepEqual(editions[0]!.translations, ['zh', 'en']);
});

test('a missing translation is a fallback page showing the other language, not a missing page', () => {
  const zh = file('073-np', 'zh', 73);
  const [zhPage, enPage] = buildEditions([zh]);
  assert.deepEqual([zhPage!.lang, zhPage!.isFallback], ['zh', false]);
  assert.deepEqual([enPage!.lang, enPage!.contentLang, enPage!.isFallback], ['en', 'zh', true]);
  assert.equal(enPage!.entry, zh);
  assert.deepEqual(enPage!.translations, ['zh']);

  const onlyEnglish = buildEditions([file('075-x', 'en', 75)]);
  assert.deepEqual(
    onlyEnglish.map((e) => [e.lang, e.contentLang, e.isFallback]),
    [
      ['zh', 'en', true],
      ['en', 'en', false],
    ],
  );
});

test('the frontmatter language must match the file name', () => {
  const wrong = { ...file('074-etp', 'en', 74), data: { ...file('074-etp', 'zh', 74).data } };
  assert.throws(() => buildEditions([wrong]), /content\/articles\/074-etp\/en\.mdx: frontmatter field "lang" is "zh", expected "en" as the file name says/);
});

test('an id that is not <slug>/<lang> names the file and what was expected', () => {
  const odd = { ...file('074-etp', 'zh', 74), id: '074-etp/fr' };
  assert.throws(
    () => parseEntryId(odd),
    /content\/articles\/074-etp\/zh\.mdx: expected content\/articles\/<slug>\/<lang>\.mdx with <lang> one of zh, en, got id "074-etp\/fr"/,
  );
  const shadow = { ...file('en', 'zh', 1), id: 'en/zh' };
  assert.throws(() => parseEntryId(shadow), /folder name "en" is a language code/);
});

test('the two languages of an article must agree on its place in the series', () => {
  assert.throws(
    () => buildEditions([file('074-etp', 'zh', 74), file('074-etp', 'en', 75)]),
    /en\.mdx: frontmatter field "series" is Kubernetes · 75, expected Kubernetes · 74 as in content\/articles\/074-etp\/zh\.mdx/,
  );
});

test('two articles cannot hold the same series number', () => {
  assert.throws(
    () => buildEditions([file('074-a', 'zh', 74), file('074-b', 'zh', 74)]),
    /074-b\/zh\.mdx: frontmatter field "series" is Kubernetes · 74, already taken by the article "074-a"/,
  );
});

test('a listing is one language, newest first, then the higher number first on the same day', () => {
  const editions = buildEditions([
    file('072-old', 'zh', 72, '2026-10-01'),
    file('073-same-day', 'zh', 73, '2026-12-02'),
    file('074-same-day', 'zh', 74, '2026-12-02'),
    file('074-same-day', 'en', 74, '2026-12-02'),
  ]);
  assert.deepEqual(
    listingFor(editions, 'zh').map((e) => e.slug),
    ['074-same-day', '073-same-day', '072-old'],
  );
  const en = listingFor(editions, 'en');
  assert.deepEqual(
    en.map((e) => [e.slug, e.isFallback]),
    [
      ['074-same-day', false],
      ['073-same-day', true],
      ['072-old', true],
    ],
  );
});

test('neighbours are the nearest numbers of the same series, in the page language', () => {
  const editions = buildEditions([file('070-a', 'zh', 70), file('074-b', 'zh', 74), file('080-c', 'zh', 80), file('080-c', 'en', 80)]);
  const middle = editions.find((e) => e.slug === '074-b' && e.lang === 'en')!;
  const { previous, next } = seriesNeighbours(editions, middle);
  assert.deepEqual([previous?.slug, previous?.lang], ['070-a', 'en']);
  assert.deepEqual([next?.slug, next?.lang], ['080-c', 'en']);
  const first = seriesNeighbours(
    editions,
    editions.find((e) => e.slug === '070-a' && e.lang === 'zh')!,
  );
  assert.equal(first.previous, null);
  assert.equal(first.next?.slug, '074-b');
  const alone = buildEditions([file('074-b', 'zh', 74)]);
  assert.deepEqual(seriesNeighbours(alone, alone[0]!), { previous: null, next: null });
});

test('frontmatter: a complete one parses, with the YAML date as a Date', () => {
  const parsed = articleFrontmatterSchema.parse({
    title: 'externalTrafficPolicy',
    summary: 'x',
    date: new Date('2026-12-02'),
    lang: 'zh',
    series: { name: 'Kubernetes', number: 74 },
    languageSpecificFacts: { 'cluster-client-ip': 'the Chinese text quotes it twice' },
  });
  assert.equal(parsed.date.toISOString(), '2026-12-02T00:00:00.000Z');
  assert.equal(parsed.series.number, 74);
  assert.equal(articleFrontmatterSchema.parse({ ...parsed, date: '2026-12-02' }).date.getTime(), parsed.date.getTime());
});

test('frontmatter: each mistake names its field', () => {
  const good = { title: 't', summary: 's', date: '2026-12-02', lang: 'en', series: { name: 'Kubernetes', number: 74 } };
  const issue = (input: unknown) => {
    const result = articleFrontmatterSchema.safeParse(input);
    assert.equal(result.success, false);
    return result.error!.issues.map((i) => i.path.join('.'));
  };
  assert.deepEqual(issue({ ...good, lang: 'fr' }), ['lang']);
  assert.deepEqual(issue({ ...good, title: '  ' }), ['title']);
  assert.deepEqual(issue({ ...good, date: 'someday' }), ['date']);
  assert.deepEqual(issue({ ...good, series: { name: 'Linux', number: 74 } }), ['series.name']);
  assert.deepEqual(issue({ ...good, series: { name: 'Kubernetes', number: 7.4 } }), ['series.number']);
  assert.deepEqual(issue({ ...good, sumary: 'typo' }), ['']);
  assert.deepEqual(issue({ ...good, languageSpecificFacts: { 'some-fact': '' } }), ['languageSpecificFacts.some-fact']);
  // Readers' search words: each a word, none blank, the list a list.
  assert.deepEqual(issue({ ...good, searchTerms: ['source IP', ' '] }), ['searchTerms.1']);
  assert.deepEqual(issue({ ...good, searchTerms: 'source IP' }), ['searchTerms']);
  assert.deepEqual(articleFrontmatterSchema.parse({ ...good, searchTerms: [' source IP '] }).searchTerms, ['source IP']);
});
