import { describe, expect, test } from 'vitest';
import { randomId, randomToken } from './ids.js';

describe('randomId', () => {
  test('is the kind prefix and 128 bits in base64url', () => {
    for (const [kind, prefix] of [
      ['agent', 'agt_'],
      ['session', 'ses_'],
      ['run', 'run_'],
    ] as const) {
      const id = randomId(kind);
      expect(id).toMatch(new RegExp(`^${prefix}[A-Za-z0-9_-]{22}$`));
      expect(Buffer.from(id.slice(4), 'base64url')).toHaveLength(16);
    }
  });

  test('never repeats, across many refills of its pool of random bytes', () => {
    const ids = Array.from({ length: 5_000 }, () => randomId('run'));
    expect(new Set(ids).size).toBe(5_000);
    // Every byte value turns up about as often as any other: the bits are drawn, not left over.
    const counts = new Array(256).fill(0);
    for (const id of ids) for (const byte of Buffer.from(id.slice(4), 'base64url')) counts[byte]++;
    expect(Math.min(...counts)).toBeGreaterThan(200);
    expect(Math.max(...counts)).toBeLessThan(440);
  });
});

describe('randomToken', () => {
  test('is 128 bits in base64url, never repeated, alongside randomId', () => {
    const tokens = Array.from({ length: 600 }, (_, i) => (i % 2 ? randomToken() : randomId('run').slice(4)));
    for (const token of tokens) {
      expect(token).toMatch(/^[A-Za-z0-9_-]{22}$/);
      expect(Buffer.from(token, 'base64url')).toHaveLength(16);
    }
    // 600 x 16 bytes: more than two refills of the 4 KiB pool, shared by both.
    expect(new Set(tokens).size).toBe(600);
  });
});
