// The echo model's tokens: runs of letters, digits and `_` (by Unicode property), and each other
// character that is not white space, by code point; as the pattern `[\p{L}\p{N}_]+|[^\s\p{L}\p{N}_]`
// matches them (with the `u` flag), read one character at a time: a model answers every run, and a
// match object per token of the whole prompt was a measurable part of the standalone server's run.

const SPACE = 0;
const WORD = 1;
const MARK = 2;
type Kind = typeof SPACE | typeof WORD | typeof MARK;

const WORD_CHARACTER = /^[\p{L}\p{N}_]$/u;
const SPACE_CHARACTER = /^\s$/u;

function kindOf(character: string): Kind {
  if (WORD_CHARACTER.test(character)) return WORD;
  return SPACE_CHARACTER.test(character) ? SPACE : MARK;
}

/** The kind of each ASCII character, so that most text needs no pattern at all. */
const ASCII_KINDS = Uint8Array.from({ length: 128 }, (_, code) => kindOf(String.fromCharCode(code)));

/**
 * Counts the tokens of `text`, stopping at the one past `max`: `cutAt` is where that one starts
 * (the text of the first `max` tokens is `text.slice(0, cutAt)`), absent when there are no more than `max`.
 */
function scan(text: string, max: number): { count: number; cutAt?: number } {
  let count = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const start = i;
    const code = text.charCodeAt(i);
    let kind: Kind;
    if (code < 128) kind = ASCII_KINDS[code] as Kind;
    else {
      const point = text.codePointAt(i) as number;
      if (point > 0xffff) i++;
      kind = kindOf(String.fromCodePoint(point));
    }
    if (kind === SPACE || (kind === WORD && inWord)) {
      inWord = kind === WORD;
      continue;
    }
    inWord = kind === WORD;
    if (++count > max) return { count: max, cutAt: start };
  }
  return { count };
}

/** Counts echo-model tokens in a text: words and single punctuation marks. */
export function countEchoTokens(text: string): number {
  return scan(text, Number.POSITIVE_INFINITY).count;
}

/** The first `max` echo-model tokens of a text, and whether it was cut. */
export function firstEchoTokens(text: string, max: number): { text: string; cut: boolean } {
  // Every token is at least one character long: a text no longer than `max` has no more tokens.
  if (text.length <= max) return { text, cut: false };
  const { cutAt } = scan(text, max);
  return cutAt === undefined ? { text, cut: false } : { text: text.slice(0, cutAt), cut: true };
}
