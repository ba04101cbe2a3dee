import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { countEchoTokens, firstEchoTokens } from './echo-tokens.js';

// The definition the scanner must agree with, character for character.
const TOKEN = /[\p{L}\p{N}_]+|[^\s\p{L}\p{N}_]/gu;
const byPattern = {
  count: (text: string) => text.match(TOKEN)?.length ?? 0,
  first(text: string, max: number) {
    let count = 0;
    for (const match of text.matchAll(TOKEN)) if (++count > max) return { text: text.slice(0, match.index), cut: true };
    return { text, cut: false };
  },
};

// Text that mixes what the scanner tells apart: ASCII, letters and digits of other scripts, Unicode
// spaces, marks, emoji (two UTF-16 units) and lone surrogates.
const PIECES = [
  'a',
  'Z',
  '9',
  '_',
  ' ',
  '\t',
  '\n',
  ',',
  '!',
  '-',
  'é',
  '日',
  '٣',
  '\u00a0',
  '\u2028',
  '\u3000',
  '\ufeff',
  '😀',
  '𝟘',
  '\u0301',
  '\ud800',
  '\udfff',
  '€',
];
const text = fc.oneof(
  fc.string({ unit: fc.constantFrom(...PIECES), maxLength: 60 }),
  fc.string({ unit: 'binary', maxLength: 60 }),
  fc.string({ maxLength: 60 }),
);

describe('echo tokens', () => {
  test('words and single marks, by code point', () => {
    expect(
      ['', '   ', 'Hello, world!', '日本語 text', 'a_b1 c', '😀😀', 'x\u00a0y', 'café', '\ud800a'].map(countEchoTokens),
    ).toStrictEqual([0, 0, 4, 2, 2, 2, 2, 1, 2]);
  });

  test('the first tokens end where the next one starts, white space before it included', () => {
    expect([
      firstEchoTokens('Echo: hello  world', 3),
      firstEchoTokens('one two', 2),
      firstEchoTokens('one two', 1),
      firstEchoTokens('  hi', -3),
      firstEchoTokens('😀😀😀', 2),
    ]).toStrictEqual([
      { text: 'Echo: hello  ', cut: true },
      { text: 'one two', cut: false },
      { text: 'one ', cut: true },
      { text: '  ', cut: true },
      { text: '😀😀', cut: true },
    ]);
  });

  test('counts as the pattern matches, on any text', () => {
    fc.assert(
      fc.property(text, (t) => countEchoTokens(t) === byPattern.count(t)),
      { seed: 20261124, numRuns: 3_000 },
    );
  });

  test('cuts where the pattern would, for any limit', () => {
    fc.assert(
      fc.property(text, fc.integer({ min: -10, max: 70 }), (t, max) => {
        expect(firstEchoTokens(t, max)).toStrictEqual(byPattern.first(t, max));
      }),
      { seed: 20261124, numRuns: 3_000 },
    );
  });
});
