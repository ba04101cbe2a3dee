import { describe, expect, test } from 'vitest';
import { MAX_FILE_BYTES, refusal, size } from './attachments';

describe('attachments', () => {
  test('accepted types within the size go; others are refused with the reason', () => {
    expect(refusal({ name: 'a.png', type: 'image/png', size: 10 })).toBeUndefined();
    expect(refusal({ name: 'a.pdf', type: 'application/pdf', size: MAX_FILE_BYTES })).toBeUndefined();
    expect(refusal({ name: 'a.bmp', type: 'image/bmp', size: 10 })).toBe(
      'a.bmp: image/bmp cannot be sent (PNG, JPEG, GIF or WebP images; PDF, text, Markdown, CSV or JSON files)',
    );
    expect(refusal({ name: 'x', type: '', size: 10 })).toBe(
      'x: this type cannot be sent (PNG, JPEG, GIF or WebP images; PDF, text, Markdown, CSV or JSON files)',
    );
    expect(refusal({ name: 'big.png', type: 'image/png', size: MAX_FILE_BYTES + 1 })).toBe(
      'big.png is larger than 5 MB',
    );
  });
  test('sizes in words', () => {
    expect([size(12), size(2048), size(3 * 1024 * 1024)]).toStrictEqual(['12 B', '2 KB', '3.0 MB']);
  });
});
