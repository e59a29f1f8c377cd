// Values quoted in messages are cut: a 100 KB argument must not become a 100 KB error.

/** `text` with at most `max` characters: its start, an ellipsis and how much was left out. */
export function clip(text: string, max = 80): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}… (${text.length} characters)`;
}
