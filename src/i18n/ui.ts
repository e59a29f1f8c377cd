// The interface strings of a language, and the one way to fill their placeholders.
import type { Lang } from '../site.config.ts';
import { en } from './en.ts';
import { zh, type UiStrings } from './zh.ts';

export type { UiStrings };
export type UiKey = keyof UiStrings;

const STRINGS: Record<Lang, UiStrings> = { zh, en };

export function ui(lang: Lang): UiStrings {
  return STRINGS[lang];
}

/**
 * Replaces each {name} in a template with vars[name]. A placeholder without a
 * value, or a value the template never asks for, is a mistake in the strings.
 */
export function fill(template: string, vars: Record<string, string>): string {
  const used = new Set<string>();
  const filled = template.replace(/\{([A-Za-z]+)\}/g, (_match, name: string) => {
    const value = vars[name];
    if (value === undefined) throw new Error(`fill: template "${template}" needs {${name}}, got no value for it`);
    used.add(name);
    return value;
  });
  const unused = Object.keys(vars).filter((name) => !used.has(name));
  if (unused.length > 0) throw new Error(`fill: template "${template}" has no placeholder for ${unused.map((n) => `{${n}}`).join(', ')}`);
  return filled;
}
