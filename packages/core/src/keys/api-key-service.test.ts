import { createHash } from 'node:crypto';
import { MemoryStore } from '@agenthost/storage';
import { describe, expect, test } from 'vitest';
import { testClock } from '../testing/test-clock.js';
import type { ApiKeyRecord } from './api-key-records.js';
import { ApiKeyService } from './api-key-service.js';
import { keyedHash } from './keyed-hash.js';

const SECRET = 'a-deployment-secret-of-32-chars!';
const KEY = 'ah_legacyKeyLegacyKeyLegacyKeyLegacy';
const sha256 = (key: string, encoding: 'hex' | 'base64url') => createHash('sha256').update(key).digest(encoding);

/** A record as services before keyed hashes stored it: under the key's bare SHA-256, hex. */
const legacyRecord = (key = KEY): ApiKeyRecord => ({
  key_id: 'key_legacy',
  account_id: 'acme',
  name: 'old',
  prefix: key.slice(0, 9),
  digest: sha256(key, 'hex'),
  scopes: ['agents:read'],
  created_at: '2026-01-01T00:00:00.000Z',
  last_used_at: null,
  revoked_at: null,
});

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('ApiKeyService', () => {
  test('a new key is stored under its keyed hash; neither the key nor a bare digest of it is kept', async () => {
    const store = new MemoryStore();
    const keys = new ApiKeyService({ store, secret: SECRET, now: testClock('2026-11-22T10:00:00.000Z') });
    const { key, record } = await keys.createKey({ account: 'acme' });
    expect(await store.listKeys()).toStrictEqual([{ ...record, digest: keyedHash(SECRET, 'api-key', key) }]);
    const kept = JSON.stringify(await store.listKeys());
    for (const secretish of [key, sha256(key, 'hex'), sha256(key, 'base64url')]) expect(kept).not.toContain(secretish);
  });

  test('a key made under another secret is not found', async () => {
    const store = new MemoryStore();
    const { key } = await new ApiKeyService({ store, secret: SECRET }).createKey({ account: 'acme' });
    expect(await new ApiKeyService({ store, secret: `${SECRET}-rotated` }).authenticate(key)).toBeNull();
    expect(await new ApiKeyService({ store, secret: SECRET }).authenticate(key)).toStrictEqual({
      accountId: 'acme',
      scopes: ['agents:read', 'agents:write', 'agents:run'],
      keyId: expect.any(String),
    });
  });

  test('a missing or short secret is refused at creation', () => {
    const store = new MemoryStore();
    expect(() => new ApiKeyService({ store } as never)).toThrow(
      new TypeError('ApiKeyService: options.secret must be a string of at least 32 characters'),
    );
    expect(() => new ApiKeyService({ store, secret: 'short' })).toThrow(
      new TypeError('ApiKeyService: options.secret must be a string of at least 32 characters'),
    );
  });
});

describe('ApiKeyService: keys stored under a bare digest', () => {
  test('a key stored under its bare digest still authenticates, and its first use moves it to the keyed hash', async () => {
    const store = new MemoryStore();
    await store.createKey(legacyRecord());
    const keys = new ApiKeyService({ store, secret: SECRET, now: testClock('2026-11-22T10:00:00.000Z') });
    expect(await keys.authenticate(KEY)).toStrictEqual({
      accountId: 'acme',
      scopes: ['agents:read'],
      keyId: 'key_legacy',
    });
    await settle();
    const moved = {
      ...legacyRecord(),
      digest: keyedHash(SECRET, 'api-key', KEY),
      last_used_at: '2026-11-22T10:00:00.000Z',
    };
    expect(await store.listKeys()).toStrictEqual([moved]);
    expect(await store.findKeyByDigest(sha256(KEY, 'hex'))).toBeUndefined();
    expect(await keys.authenticate(KEY)).toStrictEqual({
      accountId: 'acme',
      scopes: ['agents:read'],
      keyId: 'key_legacy',
    });
    expect((await keys.revokeKey('key_legacy')).revoked_at).toBe('2026-11-22T10:00:00.000Z');
    expect(await keys.authenticate(KEY)).toBeNull();
    expect(await store.listKeys()).toStrictEqual([{ ...moved, revoked_at: '2026-11-22T10:00:00.000Z' }]);
  });

  test('concurrent first uses of a legacy key all authenticate and leave one record', async () => {
    const store = new MemoryStore();
    await store.createKey(legacyRecord());
    const keys = new ApiKeyService({ store, secret: SECRET, lastUsedResolutionMs: Number.MAX_SAFE_INTEGER });
    const identities = await Promise.all(Array.from({ length: 10 }, () => keys.authenticate(KEY)));
    expect(new Set(identities.map((i) => i?.keyId))).toStrictEqual(new Set(['key_legacy']));
    await settle();
    expect((await store.listKeys()).map((r) => r.digest)).toStrictEqual([keyedHash(SECRET, 'api-key', KEY)]);
  });

  test('a legacy key moved by another server between the two lookups is still accepted', async () => {
    const store = new MemoryStore();
    await store.createKey(legacyRecord());
    const keyed = keyedHash(SECRET, 'api-key', KEY);
    let first = true;
    const racing = Object.assign(Object.create(store) as MemoryStore, {
      // The keyed lookup misses; then another server moves the key before the legacy lookup.
      findKeyByDigest: async (digest: string) => {
        const found = await store.findKeyByDigest(digest);
        if (digest === keyed && first) {
          first = false;
          await store.moveKey('key_legacy', sha256(KEY, 'hex'), keyed);
        }
        return found;
      },
    });
    const keys = new ApiKeyService({ store: racing, secret: SECRET });
    expect(await keys.authenticate(KEY)).toStrictEqual({
      accountId: 'acme',
      scopes: ['agents:read'],
      keyId: 'key_legacy',
    });
  });
});
