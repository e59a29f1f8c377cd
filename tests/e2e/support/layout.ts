// Layout checks a reader on a phone would notice: sideways scrolling.
import type { Page } from '@playwright/test';

export interface Overflow {
  scrollWidth: number;
  clientWidth: number;
  /** Elements sticking out of the viewport with no scrolling ancestor to contain them. */
  culprits: string[];
}

export async function sidewaysOverflow(page: Page): Promise<Overflow> {
  return page.evaluate(() => {
    const root = document.documentElement;
    const width = root.clientWidth;
    const contained = (el: Element): boolean => {
      for (let parent = el.parentElement; parent && parent !== document.body; parent = parent.parentElement) {
        const overflowX = getComputedStyle(parent).overflowX;
        if (overflowX === 'auto' || overflowX === 'scroll' || overflowX === 'hidden' || overflowX === 'clip') return true;
      }
      return false;
    };
    const describe = (el: Element) => `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${el.classList.length ? `.${[...el.classList].join('.')}` : ''}`;
    const culprits = [...document.body.querySelectorAll('*')]
      .filter((el) => {
        const box = el.getBoundingClientRect();
        return box.width > 0 && box.right > width + 1 && !contained(el) && getComputedStyle(el).position !== 'fixed';
      })
      .map((el) => `${describe(el)} (right edge ${Math.round(el.getBoundingClientRect().right)} px)`);
    return { scrollWidth: root.scrollWidth, clientWidth: width, culprits };
  });
}
