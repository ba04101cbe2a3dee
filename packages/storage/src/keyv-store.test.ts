import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentHostError, type ApiKeyRecord } from '@agenthost/core';
import Keyv from 'keyv';
import { afterAll, describe, expect, test } from 'vitest';
import { KeyvStore } from './keyv-store.js';
import { openStore } from './open-store.js';
import { storageContractTests } from './test.js';
import { agentRecord, clearPostgres, clearRedis, DATABASE_URL, REDIS_URL, runNamespace } from './test-services.js';

describe("KeyvStore over Keyv's in-memory Map", () => {
  storageContractTests({ describe, test }, () => new KeyvStore(new Keyv({ throwOnErrors: true })));

  test('keys are bounded and hold no id in clear', async () => {
    const map = new Map<string, unknown>();
    const store = new KeyvStore(new Keyv({ store: map, throwOnErrors: true }));
    const longAccount = `acct-${'x'.repeat(500)}`;
    await store.createAgent(longAccount, agentRecord('agt_secret_id'));
    await store.appendMessages({ accountId: longAccount, agentId: 'agt_secret_id', sessionId: 'ses_visible?' }, [
      { role: 'user', content: 'hi', created_at: 'x' },
    ]);
    const keys = [...map.keys()];
    // The agent's version 1 (before the record), the agent, the account's agent index (entry, count)
    // and the agent's place in it, the agent's session index (entry, count), one message and the
    // session's meta record.
    expect(keys.map((k) => k.replace(/[A-Za-z0-9_-]{43}/, 'H'))).toStrictEqual([
      'keyv:agent-version:H:1',
      'keyv:agent:H',
      'keyv:agents:H:0',
      'keyv:agent:H:pos',
      'keyv:agents:H:n',
      'keyv:sessions:H:0',
      'keyv:sessions:H:n',
      'keyv:session:H:0',
      'keyv:session:H:meta',
    ]);
    for (const key of keys) {
      expect(key.length).toBeLessThan(100);
      expect(key).not.toMatch(/acct|secret|visible/);
    }
  });

  test('a backend failure is a StorageUnavailableError, never a silent miss', async () => {
    const failing = new Keyv({ store: new Map(), throwOnErrors: true });
    const boom = async () => {
      throw new Error('ECONNREFUSED 127.0.0.1:6379');
    };
    Object.assign(failing, { get: boom, getMany: boom, set: boom, setMany: boom });
    const store = new KeyvStore(failing);
    for (const call of [
      () => store.getAgent('a', 'b'),
      () => store.listAgents('a'),
      () => store.createAgent('a', agentRecord('b')),
      () => store.readMessages({ accountId: 'a', agentId: 'b', sessionId: 'c' }),
      () =>
        store.appendMessages({ accountId: 'a', agentId: 'b', sessionId: 'c' }, [
          { role: 'user', content: 'x', created_at: 'y' },
        ]),
    ]) {
      const error = await call().catch((e: unknown) => e);
      expect(AgentHostError.isInstance(error) && [error.code, error.message]).toStrictEqual([
        'storage_unavailable',
        'Storage is unavailable; retry later',
      ]);
    }
  });

  test('a finished turn and the clearing of its pending turn commit in the meta write: a failure there shows neither', async () => {
    const keyv = new Keyv({ store: new Map(), throwOnErrors: true });
    const store = new KeyvStore(keyv);
    const ref = { accountId: 'a', agentId: 'b', sessionId: 'c' };
    const pending = {
      user: { role: 'user' as const, content: 'send it', created_at: 't0' },
      parts: [{ type: 'tool-call' as const, tool_call_id: 'c1', tool_name: 'send', input: { to: 'x' } }],
      approvals: [{ approval_id: 'a1', tool_call_id: 'c1', tool_name: 'send', input: { to: 'x' } }],
      agent_version: 1,
      model: 'm',
      tokens: { prompt: 1, completion: 1, total: 2 },
      created_at: 't0',
    };
    await store.appendMessages(ref, [], pending);
    const set = keyv.set.bind(keyv);
    keyv.set = (async (key: string, value: unknown, ttl?: number) => {
      if (key.endsWith(':meta')) throw new Error('connection lost');
      return set(key, value, ttl);
    }) as typeof keyv.set;
    const turn = [pending.user, { role: 'assistant' as const, content: 'sent', created_at: 't1' }];
    const error = await store.appendMessages(ref, turn, null).catch((e: unknown) => e);
    expect(AgentHostError.isInstance(error) && error.code).toBe('storage_unavailable');
    keyv.set = set;
    expect([await store.readMessages(ref), await store.getPendingTurn(ref)]).toStrictEqual([[], pending]);
    await store.appendMessages(ref, turn, null);
    expect([await store.readMessages(ref), await store.getPendingTurn(ref)]).toStrictEqual([turn, undefined]);
  });

  describe('a key move cut short by a crash', () => {
    const legacy = (): ApiKeyRecord => ({
      key_id: 'key_moving',
      account_id: 'acme',
      name: null,
      prefix: 'ah_abcdef',
      digest: 'a'.repeat(64),
      scopes: ['agents:read'],
      created_at: '2026-01-01T00:00:00.000Z',
      last_used_at: null,
      revoked_at: null,
    });
    const to = 'K'.repeat(43);
    const revoked = { ...legacy(), revoked_at: '2026-01-02T00:00:00.000Z' };

    /** A store whose writes (`set` or `delete`) of keys starting with `prefix` fail while `crashAt.on`. */
    function crashingStore(method: 'set' | 'delete', prefix: string) {
      const map = new Map<string, unknown>();
      const keyv = new Keyv({ store: map, throwOnErrors: true });
      const crashAt = { on: false };
      const original = keyv[method].bind(keyv) as (...args: unknown[]) => Promise<unknown>;
      Object.assign(keyv, {
        [method]: async (key: string, ...rest: unknown[]) => {
          if (crashAt.on && key.startsWith(prefix)) throw new Error('the process died here');
          return original(key, ...rest);
        },
      });
      return { map, store: new KeyvStore(keyv), crashAt };
    }

    test('before it took effect: the record stays under its old digest, takes updates there, and the next move finishes', async () => {
      const { map, store, crashAt } = crashingStore('set', 'apikey-id:');
      await store.createKey(legacy());
      crashAt.on = true;
      await expect(store.moveKey('key_moving', legacy().digest, to)).rejects.toMatchObject({
        code: 'storage_unavailable',
      });
      crashAt.on = false;
      expect([await store.findKeyByDigest(to), await store.findKeyByDigest(legacy().digest)]).toStrictEqual([
        undefined,
        legacy(),
      ]);
      expect(await store.updateKey(revoked)).toBe(true);
      expect([await store.listKeys(), await store.getKey('key_moving')]).toStrictEqual([[revoked], revoked]);
      expect(await store.moveKey('key_moving', legacy().digest, to)).toBe(true);
      expect([await store.findKeyByDigest(to), await store.findKeyByDigest(legacy().digest)]).toStrictEqual([
        { ...revoked, digest: to },
        undefined,
      ]);
      expect(JSON.stringify([...map])).not.toContain(legacy().digest);
    });

    test('after it took effect: the record is under its new digest only, and the copy left behind is never read', async () => {
      const { map, store, crashAt } = crashingStore('delete', `apikey:${legacy().digest}`);
      await store.createKey(legacy());
      crashAt.on = true;
      await expect(store.moveKey('key_moving', legacy().digest, to)).rejects.toMatchObject({
        code: 'storage_unavailable',
      });
      expect([await store.findKeyByDigest(to), await store.findKeyByDigest(legacy().digest)]).toStrictEqual([
        { ...legacy(), digest: to },
        undefined,
      ]);
      expect(await store.moveKey('key_moving', legacy().digest, to)).toBe(false);
      expect(await store.updateKey(revoked)).toBe(true);
      expect([
        await store.listKeys(),
        await store.getKey('key_moving'),
        await store.findKeyByDigest(legacy().digest),
      ]).toStrictEqual([[{ ...revoked, digest: to }], { ...revoked, digest: to }, undefined]);
      // The stale copy is still there, unread: a crash at this point leaves it behind.
      expect(map.get(`keyv:apikey:${legacy().digest}`)).toBeDefined();
    });
  });

  test('a write the backend does not confirm is an error', async () => {
    const keyv = new Keyv({ throwOnErrors: true });
    Object.assign(keyv, { set: async () => false });
    const error = await new KeyvStore(keyv).createAgent('a', agentRecord('b')).catch((e: unknown) => e);
    expect(AgentHostError.isInstance(error) && error.code).toBe('storage_unavailable');
  });
});

describe('KeyvStore over SQLite', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'agenthost-sqlite-'));
  afterAll(() => rm(dir, { recursive: true, force: true }));
  storageContractTests(
    { describe, test },
    async (scope) => (await openStore(`sqlite://${join(dir, `${scope}.sqlite`)}`)).store,
  );
});

describe('KeyvStore over Redis', () => {
  const namespace = runNamespace('redis');
  afterAll(() => clearRedis(namespace));
  storageContractTests(
    { describe, test },
    async (scope) => (await openStore(REDIS_URL, { namespace: `${namespace}-${scope}` })).store,
    { sharesData: true },
  );
});

describe('KeyvStore over Postgres', () => {
  const namespace = runNamespace('pg');
  afterAll(() => clearPostgres(namespace));
  storageContractTests(
    { describe, test },
    async (scope) => (await openStore(DATABASE_URL, { namespace: `${namespace}-${scope}` })).store,
    { sharesData: true },
  );
});
