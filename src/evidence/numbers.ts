// Numbers in prose: where they are, and what they look like (an IP, a port, an
// exit code, an HTTP status, a duration). Digits that belong to a name
// (worker2, k8s, KUBE-SEP-4AVAQD72) are not numbers.

export type ValueKind = 'ip' | 'port' | 'exit-code' | 'http-status' | 'duration' | 'number';

export const KIND_LABELS: Record<ValueKind, string> = {
  ip: 'IP address',
  port: 'port',
  'exit-code': 'exit code',
  'http-status': 'HTTP status',
  duration: 'duration',
  number: 'number',
};

export interface NumericToken {
  text: string;
  /** Offset of the token in the text searched. */
  index: number;
  kind: ValueKind;
}

// A name (letters first, may carry digits and dashes) is consumed whole, so its digits are skipped.
const TOKEN = /0x[0-9a-fA-F]+|[A-Za-z_][A-Za-z0-9_]*(?:-[A-Za-z0-9_]+)*|\d+(?:[.:/]\d+)*/g;

const IP = /^\d{1,3}(?:\.\d{1,3}){3}(?:\/\d{1,2})?(?::\d+)?$/;
const DURATION_UNIT = /^\s?(?:ms|s|secs?|seconds?|min|minutes?|毫秒|秒|分钟)(?![A-Za-z])/;
const EXIT_CODE_BEFORE = /(?:\brc|\bexit(?: code| status)?|exitCode|退出码|返回码)\s*[=:]?\s*$|curl: \($/i;
const STATUS_BEFORE = /(?:HTTP(?:\/[\d.]+)?|\bstatus(?: code)?|状态码?)\s*[=:]?\s*$/i;
const STATUS_AFTER =
  /^\s*(?:OK|Created|Accepted|No Content|Moved Permanently|Found|Not Modified|Bad Request|Unauthorized|Forbidden|Not Found|Internal Server Error|Bad Gateway|Service Unavailable|Gateway Timeout)\b/;
const COMMON_STATUSES = new Set([200, 201, 204, 301, 302, 304, 400, 401, 403, 404, 500, 502, 503, 504]);
const STATUS_NEARBY = /HTTP|status|状态|健康检查|health/i;
const PORT_BEFORE = /(?:\bport|端口|NodePort|dport|sport)\s*[=:]?\s*$|[A-Za-z0-9\])]:$/i;

export function classifyNumber(text: string, before: string, after: string): ValueKind {
  if (IP.test(text)) return 'ip';
  if (DURATION_UNIT.test(after)) return 'duration';
  if (EXIT_CODE_BEFORE.test(before)) return 'exit-code';
  const n = /^\d+$/.test(text) ? Number(text) : NaN;
  if (n >= 100 && n <= 599 && (STATUS_BEFORE.test(before) || STATUS_AFTER.test(after))) return 'http-status';
  if (PORT_BEFORE.test(before) || (n >= 30000 && n <= 32767)) return 'port';
  if (COMMON_STATUSES.has(n) && STATUS_NEARBY.test(before.slice(-40) + after.slice(0, 20))) return 'http-status';
  return 'number';
}

/**
 * Every numeral but ASCII digits: any script's digits (Nd: ٣, ३), letter-like
 * numerals (Nl: Ⅲ) and the rest (No: ③, ², ½). Not the CJK ideographs 一 二 三
 * (letters, Lo): Chinese prose writes them as words (两个节点, 第一次), so
 * they are the prose's, not typed-in measurements. Nor 〇 (Nl), the zero that
 * goes with them (二〇二六年).
 */
const NUMERAL = /(?![0-9\u3007])[\p{Nd}\p{Nl}\p{No}]/gu;

/** Any character foldDigits makes a digit of, ASCII and full-width digits included (all Nd). */
const ANY_NUMERAL = /(?!\u3007)[\p{Nd}\p{Nl}\p{No}]/u;

/**
 * The text with every numeral a reader sees as a number written as an ASCII
 * digit, and full-width ASCII (`３．０２`, `ｓ`) as ASCII, offsets kept:
 * `等了 ３.０２ 秒`, `等了 ٣ 秒` and `第 ③ 个` are claims like `等了 3 秒`.
 */
export function foldDigits(text: string): string {
  // ASCII digits stay as they are: only other numerals are rewritten (most prose has none).
  return text.replace(/[\uFF01-\uFF5E]/g, (c) => String.fromCharCode(c.charCodeAt(0) - 0xfee0)).replace(NUMERAL, (c) => '0'.repeat(c.length));
}

/** Every number in `text` outside names, classified by how it looks and what surrounds it (any script's digits). */
export function findNumericTokens(original: string): NumericToken[] {
  // Most runs of a page's text hold no numeral at all: nothing to fold or match (a number needs one).
  if (!ANY_NUMERAL.test(original)) return [];
  const text = foldDigits(original);
  const tokens: NumericToken[] = [];
  for (const m of text.matchAll(TOKEN)) {
    const token = m[0];
    if (/^[A-Za-z_]/.test(token)) continue;
    const index = m.index;
    const kind = classifyNumber(token, text.slice(Math.max(0, index - 40), index), text.slice(index + token.length, index + token.length + 24));
    tokens.push({ text: original.slice(index, index + token.length), index, kind });
  }
  return tokens;
}
