import { describe, expect, test } from 'vitest';
import { estimateTokens, FILE_TOKENS, IMAGE_TOKENS, partsTokens } from './context-window.js';
import { historyBudget } from './runs/context-budget.js';

const b64 = (text: string) => Buffer.from(text).toString('base64');

describe('estimateTokens', () => {
  test('one token per three UTF-8 bytes, rounded up, plus four a message; a lone surrogate counts as U+FFFD', () => {
    const texts = ['', 'abc', 'abcd', 'héllo', '日本', '🎉', 'a\uD800', '\uDC00'];
    expect(texts.map(estimateTokens)).toStrictEqual([4, 5, 6, 6, 6, 6, 6, 5]);
  });
});

describe('partsTokens', () => {
  test('an image is a fixed estimate; a text file its bytes over three; a PDF or a URL a fixed one; text is counted apart', () => {
    expect(partsTokens(undefined)).toBe(0);
    expect(partsTokens([{ type: 'text', text: 'x'.repeat(300) }])).toBe(0);
    expect(partsTokens([{ type: 'image', media_type: 'image/png', url: 'https://x.example/a.png' }])).toBe(
      IMAGE_TOKENS,
    );
    expect(partsTokens([{ type: 'file', media_type: 'text/plain', data: b64('x'.repeat(300)) }])).toBe(100);
    expect(partsTokens([{ type: 'file', media_type: 'text/plain', data: b64('x'.repeat(301)) }])).toBe(101);
    expect(partsTokens([{ type: 'file', media_type: 'application/pdf', data: b64('%PDF-1.7') }])).toBe(FILE_TOKENS);
    expect(partsTokens([{ type: 'file', media_type: 'text/csv', url: 'https://x.example/a.csv' }])).toBe(FILE_TOKENS);
  });

  test('the history budget leaves room for the input’s images', () => {
    const config = { model: 'm', instruction: 'I', max_output_tokens: 100 };
    const settings = { contextWindows: { m: 10_000 }, maxOutputTokens: 4000 };
    const request = { config, info: { name: 'm', provider: 'custom' }, input: 'hi', tools: undefined };
    const plain = historyBudget(settings, request);
    const image = { type: 'image' as const, media_type: 'image/png', data: 'iVBORw0KGgo=' };
    expect(historyBudget(settings, { ...request, parts: [image, image] })).toBe(plain - 2 * IMAGE_TOKENS);
  });
});
