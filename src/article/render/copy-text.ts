// What a copy button puts on the clipboard: a block's text as shown, less the
// prompt a command is shown with (`worker$ `, `$ `), which a shell would refuse.
// Pure; the browser script passes the block's text.

/** The prompt StepOutput writes before a command: the node's name (none on the host), then `$ `. */
const PROMPT = /^[^\s$]*\$ /;

export function copyText(shown: string, kind: 'command' | 'output'): string {
  return kind === 'command' ? shown.replace(PROMPT, '') : shown;
}
