import { ApiKeyService, keyedHash } from '@agenthost/core';
import { testClock } from '@agenthost/core/test';
import { MemoryStore } from '@agenthost/storage';
import { describe, expect, test } from 'vitest';
import { anyKey, managedKeys, sameDigest, staticKeys } from './auth.js';

describe('staticKeys', () => {
  const resolve = staticKeys([
    { account: 'alpha', key: 'alpha-key-0123456789' },
    { account: 'beta', key: 'beta-key-0123456789' },
  ]);

  test('a listed key names its account; anything else is null', async () => {
    expect(await resolve('alpha-key-0123456789')).toStrictEqual({
      accountId: 'alpha',
      scopes: ['agents:read', 'agents:write', 'agents:run'],
    });
    expect(await resolve('beta-key-0123456789')).toStrictEqual({
      accountId: 'beta',
      scopes: ['agents:read', 'agents:write', 'agents:run'],
    });
    for (const key of ['', 'alpha-key-012345678', 'alpha-key-0123456789 ', 'ALPHA-KEY-0123456789'])
      expect(await resolve(key)).toBeNull();
  });

  test.each([
    [[], 'staticKeys: give at least one { account, key } entry'],
    [[{ account: ' ', key: 'k' }], 'staticKeys: every entry needs a non-blank account'],
    [[{ account: 'a', key: '' }], 'staticKeys: the key of account "a" is blank'],
    [
      [
        { account: 'a', key: 'same' },
        { account: 'b', key: 'same' },
      ],
      'staticKeys: a key is listed twice (account "b")',
    ],
  ])('%j is refused at creation', (entries, message) => {
    expect(() => staticKeys(entries)).toThrow(new TypeError(message));
  });
});

const SECRET = 'a-deployment-secret-of-32-chars!';

describe('managed keys', () => {
  test('a key is shown once; the store keeps its keyed hash and prefix; revoking refuses it at once', async () => {
    const store = new MemoryStore();
    const clock = testClock('2026-11-22T10:00:00.000Z');
    const keys = new ApiKeyService({ store, secret: SECRET, now: clock, lastUsedResolutionMs: 60_000 });
    const { key, record } = await keys.createKey({
      account: 'acme',
      name: 'ci',
      scopes: ['agents:read', 'agents:run'],
    });
    expect(key).toMatch(/^ah_[A-Za-z0-9_-]{32}$/);
    expect(record).toStrictEqual({
      key_id: record.key_id,
      account_id: 'acme',
      name: 'ci',
      prefix: key.slice(0, 9),
      scopes: ['agents:read', 'agents:run'],
      created_at: '2026-11-22T10:00:00.000Z',
      last_used_at: null,
      revoked_at: null,
    });
    const stored = (await store.listKeys())[0]!;
    expect([stored.digest, JSON.stringify(stored).includes(key)]).toStrictEqual([
      keyedHash(SECRET, 'api-key', key),
      false,
    ]);

    const resolve = managedKeys(keys);
    clock.advance(1_000);
    expect(await resolve(key)).toStrictEqual({ accountId: 'acme', scopes: ['agents:read', 'agents:run'] });
    await new Promise((r) => setImmediate(r));
    expect((await keys.listKeys())[0]!.last_used_at).toBe('2026-11-22T10:00:01.000Z');
    expect(await resolve(`${key}x`)).toBeNull();
    expect(await resolve('not-a-key')).toBeNull();

    clock.advance(1_000);
    expect((await keys.revokeKey(record.key_id)).revoked_at).toBe('2026-11-22T10:00:02.000Z');
    expect(await resolve(key)).toBeNull();
    expect((await keys.listKeys({ account: 'acme' })).map((k) => k.revoked_at)).toStrictEqual([
      '2026-11-22T10:00:02.000Z',
    ]);
    await expect(keys.revokeKey('key_missing')).rejects.toMatchObject({ code: 'not_found' });
  });

  test('bad requests for a key are input errors', async () => {
    const keys = new ApiKeyService({ store: new MemoryStore(), secret: SECRET });
    await expect(keys.createKey({ account: 'has space' })).rejects.toMatchObject({
      code: 'invalid_input',
      details: { account: { path: ['account'] } },
    });
    await expect(keys.createKey({ account: 'a', scopes: ['agents:admin' as never] })).rejects.toMatchObject({
      code: 'invalid_input',
    });
    await expect(keys.createKey({ account: 'a', scopes: [] })).rejects.toMatchObject({
      details: { scopes: { message: 'give at least one scope' } },
    });
  });

  test('anyKey tries configured keys, then managed ones', async () => {
    const keys = new ApiKeyService({ store: new MemoryStore(), secret: SECRET });
    const { key } = await keys.createKey({ account: 'managed' });
    const resolve = anyKey(
      staticKeys([{ account: 'configured', key: 'configured-key-0123456789' }]),
      managedKeys(keys),
    );
    expect((await resolve('configured-key-0123456789'))?.accountId).toBe('configured');
    expect((await resolve(key))?.accountId).toBe('managed');
    expect(await resolve('neither')).toBeNull();
  });
});

describe('sameDigest', () => {
  test('is true only for the same text, whatever length or position differs', () => {
    const a = 'a'.repeat(64);
    expect(
      [a, `b${a.slice(1)}`, `${a.slice(1)}b`, a.slice(1), `${a}a`, ''].map((other) => sameDigest(a, other)),
    ).toStrictEqual([true, false, false, false, false, false]);
    expect(sameDigest('', '')).toBe(true);
  });
});
