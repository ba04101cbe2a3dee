import { createHmac } from 'node:crypto';
import { beforeEach, describe, expect, test, vi } from 'vitest';

const calls = vi.hoisted(() => ({ count: 0 }));
vi.mock('@agenthost/core', async (original) => {
  const core = await original<typeof import('@agenthost/core')>();
  return {
    ...core,
    keyedHash: (...args: Parameters<typeof core.keyedHash>) => {
      calls.count++;
      return core.keyedHash(...args);
    },
  };
});

const { limiterKeyNames } = await import('./limiter-key.js');

const SECRET = 'a-deployment-secret-of-32-chars!';
const named = (key: string) => `key:${createHmac('sha256', SECRET).update(`rate-limit:${key}`).digest('base64url')}`;

describe('limiterKeyNames', () => {
  beforeEach(() => {
    calls.count = 0;
  });

  test("names a key by its keyed hash, and hashes a remembered key's name only once", () => {
    const name = limiterKeyNames(SECRET);
    expect([name('key-a', true), name('key-a', true), name('key-b', true)]).toStrictEqual([
      named('key-a'),
      named('key-a'),
      named('key-b'),
    ]);
    expect(calls.count).toBe(2);
  });

  test('a key not to remember is hashed every time, and never fills the memory', () => {
    const name = limiterKeyNames(SECRET, 2);
    expect([name('guess', false), name('guess', false)]).toStrictEqual([named('guess'), named('guess')]);
    expect(calls.count).toBe(2);
  });

  test('past its size, the least recently used key is forgotten and hashed again', () => {
    const name = limiterKeyNames(SECRET, 2);
    name('key-a', true);
    name('key-b', true);
    name('key-a', true); // key-a is now the most recently used
    name('key-c', true); // forgets key-b
    expect(calls.count).toBe(3);
    expect([name('key-a', true), name('key-c', true)]).toStrictEqual([named('key-a'), named('key-c')]);
    expect(calls.count).toBe(3);
    expect(name('key-b', true)).toBe(named('key-b'));
    expect(calls.count).toBe(4);
  });

  test('a key used several times in a row stays the most recently used', () => {
    const name = limiterKeyNames(SECRET, 2);
    name('key-a', true);
    name('key-b', true);
    name('key-b', true);
    name('key-b', true);
    name('key-c', true); // forgets key-a, not key-b
    expect(calls.count).toBe(3);
    expect([name('key-b', true), name('key-c', true)]).toStrictEqual([named('key-b'), named('key-c')]);
    expect(calls.count).toBe(3);
    expect(name('key-a', true)).toBe(named('key-a'));
    expect(calls.count).toBe(4);
  });

  test('the key used last is known through moves and insertions', () => {
    const moved = limiterKeyNames(SECRET, 2);
    for (const key of ['a', 'b', 'a', 'b']) moved(key, true); // b moved back to the end
    moved('c', true); // forgets a
    calls.count = 0;
    moved('b', true);
    expect(calls.count).toBe(0);
    const inserted = limiterKeyNames(SECRET, 2);
    for (const key of ['a', 'b', 'a', 'c']) inserted(key, true); // c inserted after a moved: forgets b
    inserted('a', true); // a moved after c
    inserted('d', true); // forgets c
    calls.count = 0;
    inserted('a', true);
    expect(calls.count).toBe(0);
  });
});
