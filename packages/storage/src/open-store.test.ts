import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InProcessRunStore, type RunSignal } from '@agenthost/core';
import { describe, expect, test, vi } from 'vitest';
import { openStore } from './open-store.js';
import { PostgresRunStore } from './runs/postgres-run-store.js';
import { RedisRunStore } from './runs/redis-run-store.js';
import { agentRecord, clearRedis, DATABASE_URL, REDIS_URL, runNamespace } from './test-services.js';

describe('openStore', () => {
  test.each([
    ['nonsense', '"nonsense" is not a store location; use one of: memory, sqlite://<path>'],
    ['mysql://127.0.0.1/db', 'unsupported store "mysql://"; use one of: memory'],
    ['sqlite://', 'sqlite:// needs a file path, e.g. sqlite://./.agenthost/agenthost.sqlite'],
  ])('%s is refused with a message naming the supported forms', async (location, message) => {
    await expect(openStore(location)).rejects.toThrow(message);
  });

  test('memory opens a memory store with in-process locks', async () => {
    const opened = await openStore('memory');
    expect([opened.kind, opened.description]).toStrictEqual(['memory', 'memory']);
  });

  test.each([
    ['redis://:hunter2@127.0.0.1:1/0', 'cannot reach the store at redis://:***@127.0.0.1:1/0'],
    [
      'postgres://postgres:hunter2@127.0.0.1:1/test',
      'cannot reach the store at postgres://postgres:***@127.0.0.1:1/test',
    ],
  ])('an unreachable %s fails fast, with the password hidden', async (location, message) => {
    const started = Date.now();
    const error = (await openStore(location, { connectTimeoutMs: 300 }).catch((e: unknown) => e)) as Error;
    expect(error.message).toContain(message);
    expect(error.message).not.toContain('hunter2');
    expect(Date.now() - started).toBeLessThan(3000);
  });

  test.each([
    ['memory', InProcessRunStore],
    ['sqlite', InProcessRunStore],
    ['redis', RedisRunStore],
    ['postgres', PostgresRunStore],
  ] as const)('%s has a run store, which close() closes', async (kind, type) => {
    const dir = await mkdtemp(join(tmpdir(), 'agenthost-runs-'));
    const namespace = runNamespace('open-runs');
    const locations = {
      memory: 'memory',
      sqlite: `sqlite://${join(dir, 'store.sqlite')}`,
      redis: REDIS_URL,
      postgres: DATABASE_URL,
    };
    const opened = await openStore(locations[kind], { namespace });
    const heard: RunSignal[] = [];
    try {
      expect(opened.runs).toBeInstanceOf(type);
      await opened.runs.subscribe('run-1', (signal) => heard.push(signal));
      await opened.runs.publish('run-1', { type: 'end' });
      for (let i = 0; i < 100 && heard.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(heard).toStrictEqual([{ type: 'end' }]);
    } finally {
      await opened.close();
      await rm(dir, { recursive: true, force: true });
      if (kind === 'redis') await clearRedis(namespace);
    }
    // Closed: its listeners hear nothing more, and a closed Redis or PostgreSQL store refuses new ones.
    await opened.runs.publish('run-1', { type: 'cancel' }).catch(() => {});
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(heard).toStrictEqual([{ type: 'end' }]);
    if (kind === 'redis' || kind === 'postgres')
      await expect(opened.runs.subscribe('run-1', () => {})).rejects.toMatchObject({ code: 'storage_unavailable' });
  });

  test('redis: no command leaves a timer behind once answered (no AbortSignal.timeout per command)', async () => {
    const namespace = runNamespace('open-timers');
    const opened = await openStore(REDIS_URL, { namespace });
    // node-redis gives each command with a timeout an AbortSignal.timeout, whose timer lives on for
    // the whole timeout: at hundreds of runs a second, tens of thousands of them. Every store call is
    // bounded by a deadline whose timer is cleared instead.
    const timeouts = vi.spyOn(AbortSignal, 'timeout');
    try {
      await opened.store.createAgent('acct', agentRecord('agt_1'));
      const session = { accountId: 'acct', agentId: 'agt_1', sessionId: 'ses_1' };
      await opened.store.appendMessages(session, [
        { role: 'user', content: 'hi', created_at: new Date().toISOString() },
      ]);
      expect(await opened.store.readMessages(session, { last: 10 })).toHaveLength(1);
      const lease = await opened.locks.acquire('timers', { waitMs: 1_000 });
      await lease.release();
      expect(await opened.redisCommand?.(['PING'])).toBe('PONG');
      expect(timeouts).not.toHaveBeenCalled();
      // Redis's own errors reach the caller unchanged: rate-limit-redis reloads its script on NOSCRIPT.
      await expect(opened.redisCommand?.(['EVALSHA', '0'.repeat(40), '0'])).rejects.toThrow(/^NOSCRIPT/);
    } finally {
      timeouts.mockRestore();
      await opened.close();
      await clearRedis(namespace);
    }
  });
});
