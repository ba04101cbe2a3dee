import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentHostError } from '@agenthost/core';
import Keyv from 'keyv';
import { afterAll, describe, expect, test } from 'vitest';
import { KeyvStore } from './keyv-store.js';
import { openStore } from './open-store.js';
import { storageContractTests } from './test.js';
import { DATABASE_URL, REDIS_URL, agentRecord, clearPostgres, clearRedis, runNamespace } from './test-services.js';


describe('KeyvStore over Keyv\'s in-memory Map', () => {
  storageContractTests({ describe, test }, () => new KeyvStore(new Keyv({ throwOnErrors: true })));

  test('keys are bounded and hold no id in clear', async () => {
    const map = new Map<string, unknown>();
    const store = new KeyvStore(new Keyv({ store: map, throwOnErrors: true }));
    const longAccount = `acct-${'x'.repeat(500)}`;
    await store.createAgent(longAccount, agentRecord('agt_secret_id'));
    await store.appendMessages({ accountId: longAccount, agentId: 'agt_secret_id', sessionId: 'ses_visible?' }, [{ role: 'user', content: 'hi', created_at: 'x' }]);
    const keys = [...map.keys()];
    // The agent, the account's agent index (entry, count) and the agent's place in it, the agent's
    // session index (entry, count), one message and the session's meta record.
    expect(keys.map((k) => k.replace(/[A-Za-z0-9_-]{43}/, 'H'))).toStrictEqual([
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
      () => store.appendMessages({ accountId: 'a', agentId: 'b', sessionId: 'c' }, [{ role: 'user', content: 'x', created_at: 'y' }]),
    ]) {
      const error = await call().catch((e: unknown) => e);
      expect(AgentHostError.isInstance(error) && [error.code, error.message]).toStrictEqual(['storage_unavailable', 'Storage is unavailable; retry later']);
    }
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
  storageContractTests({ describe, test }, async (scope) => (await openStore(`sqlite://${join(dir, `${scope}.sqlite`)}`)).store);
});

describe('KeyvStore over Redis', () => {
  const namespace = runNamespace('redis');
  afterAll(() => clearRedis(namespace));
  storageContractTests({ describe, test }, async (scope) => (await openStore(REDIS_URL, { namespace: `${namespace}-${scope}` })).store, { sharesData: true });
});

describe('KeyvStore over Postgres', () => {
  const namespace = runNamespace('pg');
  afterAll(() => clearPostgres(namespace));
  storageContractTests({ describe, test }, async (scope) => (await openStore(DATABASE_URL, { namespace: `${namespace}-${scope}` })).store, { sharesData: true });
});
