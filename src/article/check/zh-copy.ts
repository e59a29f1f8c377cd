// Chinese copywriting rules for the site's Chinese prose: full-width punctuation
// in Chinese context, and one space between Chinese and Latin letters or digits.
// Spacing is autocorrect's (autocorrect-node, the linter of the Chinese copywriting
// guidelines); full-width punctuation is ours, because autocorrect converts only
// between two Chinese characters and leaves "Cluster:来源" or "后端;第一条" alone.
// Only prose is checked: code, manifests, JSX tags and bound values are masked
// first, keeping every position, so a problem names the line and column of the file.
import autocorrect from 'autocorrect-node';

export interface CopyProblem {
  line: number;
  column: number;
  message: string;
}

/** Half-width punctuation and its full-width form in Chinese text. */
const FULL_WIDTH: Record<string, string> = { ',': '，', ';': '；', ':': '：', '!': '！', '?': '？', '(': '（', ')': '）' };
const HAN = /\p{Script=Han}/u;
/** Full-width punctuation (and CJK quotes) count as Chinese context too: "（地址" then ",". */
const CHINESE_CONTEXT = /[\p{Script=Han}，。；：！？、（）“”「」《》]/u;

let configured = false;
function linter(): typeof autocorrect {
  if (!configured) {
    // The default rules minus space-bracket: it would put a space before "(", which we
    // turn into "（" anyway; full-width conversion is done by our own rule below.
    autocorrect.loadConfig(JSON.stringify({ rules: { 'space-bracket': 0, fullwidth: 0, spellcheck: 0 } }));
    configured = true;
  }
  return autocorrect;
}

const blank = (text: string): string => text.replace(/[^\n]/g, ' ');
/** Masks literal code as Latin letters: spacing around it is still checked. */
const latin = (text: string): string => text.replace(/[^\n]/g, 'x');
/** Masks structure inside a line (a tag) as zero-width spaces: neither a word nor a gap between words. */
const zeroWidth = (text: string): string => text.replace(/[^\n]/g, '\u200b');
/** Masks a bound value as digits (most are numbers or addresses; "{ip}:{port}" stays an address). */
const value = (text: string): string => text.replace(/[^\n]/g, '0');

/**
 * The prose of an MDX file with everything else masked, positions kept: frontmatter
 * keys (values are prose), fenced code, inline code, JSX and HTML tags, link targets.
 */
export function mdxProse(source: string): string {
  let text = source;
  // Frontmatter: keep `title:`/`summary:` values, mask the keys and the fences.
  text = text.replace(/^---\n[\s\S]*?\n---(?=\n)/, (block) =>
    block
      .split('\n')
      .map((line) => {
        const match = /^(\s*[\w-]+:\s?)(.*)$/.exec(line);
        return match && /^(title|summary)$/.test(match[1]!.trim().slice(0, -1)) ? blank(match[1]!) + match[2] : blank(line);
      })
      .join('\n'),
  );
  text = text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?\n\1[^\n]*$/gm, blank);
  text = text.replace(/`[^`\n]+`/g, latin);
  // A <Fact .../> stands for a value (Latin or digits); other tags are structure.
  text = text.replace(/<Fact\b[^>]*\/>/g, value);
  // So does a <NotMeasured>: a number or address written out, not words.
  text = text.replace(/<NotMeasured\b[^>]*>[^<]*<\/NotMeasured>/g, value);
  // Other tags (a link component around words) vanish from the prose: zero-width, so that
  // "没有测；<ArticleLink>下一篇</ArticleLink>" reads as "没有测；下一篇", positions kept.
  text = text.replace(/<\/?[A-Za-z][^>]*>/g, zeroWidth);
  text = text.replace(/\]\([^)\s]*\)/g, (m) => `]${blank(m.slice(1))}`);
  return text;
}

/** Text with {fact.id} placeholders (measured lines, walkthrough stops) masked like a <Fact>. */
export function templateProse(text: string): string {
  return text.replace(/\{[\w.-]+\}/g, value);
}

function punctuationProblems(line: string, lineNumber: number): CopyProblem[] {
  if (!/[,;:!?()]/.test(line)) return [];
  // Code-unit indices: the text is BMP (Chinese, Latin), so columns are recounted only for a problem.
  const at = (i: number) => line[i] ?? '';
  const isChinese = (i: number) => i >= 0 && i < line.length && CHINESE_CONTEXT.test(at(i));
  const neighbour = (i: number, step: 1 | -1) => {
    let j = i + step;
    while (at(j) === ' ') j += step;
    return j;
  };
  const lineIsChinese = HAN.test(line);
  const flagged = new Set<number>();
  const open: number[] = [];
  for (const match of line.matchAll(/[,;:!?()]/g)) {
    const i = match.index;
    const char = match[0];
    if (char === '(') {
      open.push(i);
      continue;
    }
    if (char === ')') {
      // Parentheses go by pairs: Chinese outside or inside makes both full-width, "端口（healthCheckNodePort）".
      if (!open.length) continue;
      const start = open.pop()!;
      if (isChinese(neighbour(start, -1)) || isChinese(neighbour(i, 1)) || HAN.test(line.slice(start + 1, i))) {
        flagged.add(start);
        flagged.add(i);
      }
      continue;
    }
    const next = line[i + 1];
    const betweenDigits = /\d/.test(at(i - 1)) && /\d/.test(next ?? '');
    // English punctuation is followed by a space; in a Chinese line, one that is not is Chinese
    // punctuation ("s-cluster,NodePort", "s-lb:LoadBalancer"), except a colon inside an
    // address ("172.18.0.2:30278", "http://").
    // An image reference ("shice/nginx-light:bookworm") is one token too: a colon after a "/" in it.
    const token =
      line
        .slice(0, i)
        .split(/[\s\p{Script=Han}，。；：、（）]/u)
        .at(-1) ?? '';
    const colonInToken = char === ':' && (!(/\p{L}/u.test(at(i - 1)) && /\p{L}/u.test(next ?? '')) || (token.includes('/') && /\S/.test(next ?? '')));
    const unspaced = lineIsChinese && next !== undefined && next !== ' ' && !betweenDigits && !colonInToken;
    if (isChinese(neighbour(i, -1)) || isChinese(neighbour(i, 1)) || unspaced) flagged.add(i);
  }
  return [...flagged]
    .sort((a, b) => a - b)
    .map((i) => ({
      line: lineNumber,
      column: [...line.slice(0, i)].length + 1,
      message: `half-width "${line[i]}" in Chinese text: write "${FULL_WIDTH[line[i]!]}"`,
    }));
}

/** The stretch around the first place two lines differ, a few characters each side. */
function firstDifference(a: string, b: string): [string, string] {
  const x = [...a];
  const y = [...b];
  let start = 0;
  while (start < x.length && x[start] === y[start]) start++;
  let endX = x.length;
  let endY = y.length;
  while (endX > start && endY > start && x[endX - 1] === y[endY - 1]) {
    endX--;
    endY--;
  }
  const from = Math.max(0, start - 6);
  return [x.slice(from, Math.min(x.length, endX + 6)).join(''), y.slice(from, Math.min(y.length, endY + 6)).join('')];
}

/** Every problem of already-masked prose, in line order. */
export function checkChineseProse(prose: string): CopyProblem[] {
  const problems: CopyProblem[] = [];
  prose.split('\n').forEach((line, index) => problems.push(...punctuationProblems(line, index + 1)));
  for (const lint of linter().lintFor(prose, 'text').lines) {
    const [from, to] = firstDifference(lint.old, lint.new);
    problems.push({ line: lint.l, column: lint.c, message: `spacing between Chinese and Latin letters or digits: "${from}" -> "${to}"` });
  }
  return problems.sort((a, b) => a.line - b.line || a.column - b.column);
}

/**
 * The fixed text: masked prose is corrected (punctuation made full-width, then
 * autocorrect's spacing), and each change is carried back onto the original,
 * so code, tags and values are never touched.
 */
export function fixChineseCopy(original: string, prose: string): string {
  const origLines = original.split('\n');
  const proseLines = prose.split('\n');
  return origLines
    .map((origLine, index) => {
      const masked = proseLines[index] ?? '';
      const punct = punctuationProblems(masked, index + 1);
      if (!punct.length && !/[\p{Script=Han}]/u.test(masked)) return origLine;
      const chars = [...masked];
      const orig = [...origLine];
      for (const p of punct) {
        chars[p.column - 1] = FULL_WIDTH[chars[p.column - 1]!]!;
        orig[p.column - 1] = chars[p.column - 1]!;
      }
      // Full-width punctuation takes no spaces around it.
      const punctuated = chars.join('');
      const formatted = linter().format(punctuated);
      return carryOver([...punctuated], [...formatted], orig)
        .replace(/ +([，。；：！？）])/g, '$1')
        .replace(/（ +/g, '（')
        .replace(/([，。；：！？（]) +(?=\S)/g, '$1');
    })
    .join('\n');
}

/** Applies the edits that turned `from` into `to` (spaces inserted or removed, characters swapped) to `target`, a same-length twin of `from`. */
function carryOver(from: string[], to: string[], target: string[]): string {
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < from.length || j < to.length) {
    if (i < from.length && j < to.length && from[i] === to[j]) {
      out.push(target[i]!);
      i++;
      j++;
    } else if (j < to.length && to[j] === ' ') {
      out.push(' ');
      j++;
    } else if (i < from.length && from[i] === ' ') {
      i++;
    } else if (i < from.length && j < to.length) {
      out.push(to[j]!);
      i++;
      j++;
    } else {
      if (i < from.length) out.push(target[i]!);
      i++;
      j++;
    }
  }
  return out.join('');
}

/** Problems of an MDX file, each as `file:line:column: message`. */
export function checkChineseMdx(file: string, source: string): string[] {
  return checkChineseProse(mdxProse(source)).map((p) => `${file}:${p.line}:${p.column}: ${p.message} (fix: npm run lint:zh -- --fix)`);
}
