// The search dialog's behaviour, loaded only when a reader first opens it
// (Search.astro imports it then): it loads Pagefind's script and the index of the
// page's language from the site's pagefind/ folder, searches as the reader types
// and lists the pages found, each linked at the section that matched most, every
// part written as text (excerpt.ts).
// As text, added when the dialog is first wired: imported plainly, Astro would put it on every page.
import css from '../styles/search.css?inline';
import { excerptParts, landingOf, type ResultData } from './excerpt.ts';

/** The part of Pagefind's browser API the dialog uses (pagefind.js, written by the build). */
interface Pagefind {
  init(): Promise<void>;
  debouncedSearch(query: string, options?: object, ms?: number): Promise<{ results: { data(): Promise<ResultData> }[] } | null>;
}

/** Enough to choose from; the rest are one more word away. */
const SHOWN = 8;

export function wireSearch(dialog: HTMLDialogElement): void {
  document.head.append(Object.assign(document.createElement('style'), { textContent: css }));
  const input = dialog.querySelector<HTMLInputElement>('input[type="search"]')!;
  const status = dialog.querySelector<HTMLElement>('[data-search-status]')!;
  const list = dialog.querySelector<HTMLElement>('[data-search-results]')!;
  const say = (text: string) => (status.textContent = text);
  const base = import.meta.env.BASE_URL;

  say(dialog.dataset.loading!);
  const pagefind: Promise<Pagefind | null> = import(/* @vite-ignore */ `${base}pagefind/pagefind.js`).then(
    async (module: Pagefind) => {
      await module.init();
      say('');
      return module;
    },
    () => {
      say(dialog.dataset.unavailable!);
      return null;
    },
  );

  const run = async () => {
    const query = input.value.trim();
    const engine = await pagefind;
    if (!engine) return;
    if (!query) {
      list.replaceChildren();
      say('');
      return;
    }
    const found = await engine.debouncedSearch(query, {}, 150);
    // null: a later keystroke superseded this search.
    if (found === null || input.value.trim() !== query) return;
    const data = await Promise.all(found.results.slice(0, SHOWN).map((r) => r.data()));
    list.replaceChildren(...data.map((d) => resultItem(d, base)));
    say(found.results.length === 0 ? dialog.dataset.none! : dialog.dataset.results!.replace('{count}', String(found.results.length)));
  };
  input.addEventListener('input', run);
  // Enter follows the first result; the form never goes anywhere itself.
  dialog.querySelector('form')!.addEventListener('submit', (event) => {
    event.preventDefault();
    list.querySelector('a')?.click();
  });
  dialog.querySelector('[data-search-close]')!.addEventListener('click', () => dialog.close());
  // Escape in a search field would only empty it (Chromium): it closes the dialog, as elsewhere in it.
  input.addEventListener('keydown', (event) => {
    if (event.key !== 'Escape') return;
    event.preventDefault();
    dialog.close();
  });
  // A click on the backdrop (the dialog element itself, outside its box's content) closes it.
  dialog.addEventListener('click', (event) => {
    if (event.target === dialog) dialog.close();
  });
  if (input.value) void run();
}

/** A result: its page's title and, when it lands on a section, that section's heading; then the excerpt there. */
function resultItem(data: ResultData, base: string): HTMLLIElement {
  const landing = landingOf(data, base);
  const item = document.createElement('li');
  const link = document.createElement('a');
  link.href = landing.href;
  link.append(Object.assign(document.createElement('span'), { className: 'search-result-title', textContent: landing.title }));
  if (landing.section) link.append(Object.assign(document.createElement('span'), { className: 'search-result-section', textContent: landing.section }));
  const excerpt = document.createElement('p');
  for (const part of excerptParts(landing.excerpt)) {
    excerpt.append(part.mark ? Object.assign(document.createElement('mark'), { textContent: part.text }) : part.text);
  }
  item.append(link, excerpt);
  return item;
}
