// Text from a snapshot (a step's output, a path, a value) on its way to a
// terminal: control characters would move the cursor, recolour or clear the
// screen, and bidirectional controls would reorder what the reader sees, so a
// line could say something other than what the file holds. Each is shown as an
// escape instead (`\x1b`, `\u202e`). Line feeds and tabs stay: reports are
// multi-line on purpose. Pure.

/** C0 and C1 controls but tab and line feed, DEL, the bidi controls (embeddings, overrides, isolates, marks) and the line/paragraph separators. */
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** `text` with every control character that could change what a terminal shows written as an escape. */
export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/**
 * Input a person typed (a slug, a flag's value), quoted for a one-line message: as a JSON string, so a
 * line feed is `\n` and the line cannot be split into a forged second one, with the characters JSON
 * leaves as they are but a terminal would act on (DEL, C1, bidi controls, U+2028/U+2029) as `\uNNNN`.
 * JSON.parse of the quote gives the input back.
 */
export function quoted(text: string): string {
  return JSON.stringify(text).replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Any character terminalSafe escapes, and the line feed and tab it leaves. */
const NOT_IN_A_NAME = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/**
 * A name read from the filesystem (a folder, a file) as a one-line message shows it: as it is when
 * every character is one a terminal only prints, otherwise quoted (a line feed as `\n`, ESC as
 * `\u001b`), so a name can neither split the line nor act on the terminal.
 */
export function shownName(name: string): string {
  return NOT_IN_A_NAME.test(name) ? quoted(name) : name;
}
