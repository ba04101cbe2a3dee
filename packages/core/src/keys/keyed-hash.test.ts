import { createHash, createHmac } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { checkSecret, keyedHash, MIN_SECRET_LENGTH } from './keyed-hash.js';

const SECRET = 'a-deployment-secret-of-32-chars!';

describe('keyedHash', () => {
  test('is HMAC-SHA256 under the secret of the purpose and the value, base64url', () => {
    const expected = createHmac('sha256', SECRET).update('rate-limit:short').digest('base64url');
    expect(keyedHash(SECRET, 'rate-limit', 'short')).toBe(expected);
    expect(expected).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  test('differs by secret and by purpose, and is never the bare digest', () => {
    const names = [
      keyedHash(SECRET, 'rate-limit', 'short'),
      keyedHash(`${SECRET}x`, 'rate-limit', 'short'),
      keyedHash(SECRET, 'api-key', 'short'),
      createHash('sha256').update('short').digest('base64url'),
    ];
    expect(new Set(names).size).toBe(4);
  });

  test('a secret must be a string of at least 32 characters', () => {
    expect(MIN_SECRET_LENGTH).toBe(32);
    expect(() => checkSecret(SECRET, 'who')).not.toThrow();
    for (const bad of [undefined, '', 'x'.repeat(31), 42]) {
      expect(() => checkSecret(bad, 'ApiKeyService: options.secret')).toThrow(
        new TypeError('ApiKeyService: options.secret must be a string of at least 32 characters'),
      );
    }
  });
});
