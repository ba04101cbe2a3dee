import { inProcessLocks } from '@agenthost/core';
import { createClient } from '@keyv/redis';
import pg from 'pg';
import { afterAll, describe, expect, test, vi } from 'vitest';
import { lockContractTests } from '../test.js';
import { clearRedis, DATABASE_URL, REDIS_URL, runNamespace } from '../test-services.js';
import { postgresLocks } from './postgres-locks.js';
import { redisLocks } from './redis-locks.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function redisClient() {
  const client = createClient({ url: REDIS_URL });
  await client.connect();
  return client;
}

describe('inProcessLocks', () => {
  lockContractTests({ describe, test }, () => inProcessLocks());
});

describe('redisLocks', () => {
  const prefix = `${runNamespace('locks')}:`;
  const clients: Awaited<ReturnType<typeof redisClient>>[] = [];
  afterAll(async () => {
    for (const c of clients) c.destroy();
    await clearRedis(prefix);
  });
  const make = async (leaseMs?: number) => {
    const client = await redisClient();
    clients.push(client);
    return { client, locks: redisLocks(client, { prefix, ...(leaseMs && { leaseMs }) }) };
  };

  lockContractTests({ describe, test }, async () => (await make()).locks, { shared: true });

  test('a lease reads validUntil from its prototype, renewed with it; no accessor is made per lease', async () => {
    const { locks } = await make(300);
    const before = Date.now();
    const lease = await locks.acquire('until', { waitMs: 1000 });
    try {
      const accessors = (value: object) =>
        Object.values(Object.getOwnPropertyDescriptors(value)).filter((d) => d.get || d.set).length;
      expect(accessors(lease)).toBe(0);
      const first = lease.validUntil!;
      expect(first).toBeGreaterThanOrEqual(before + 300);
      expect(first).toBeLessThanOrEqual(Date.now() + 300);
      // A renewal every third of the lease moves it on.
      await vi.waitFor(() => expect(lease.validUntil!).toBeGreaterThan(first), { timeout: 1000, interval: 20 });
    } finally {
      // Released whatever happened: another test takes over the first key under the prefix.
      await lease.release();
    }
  });

  test('a held lease is renewed past its length, and others keep waiting', async () => {
    const [{ locks: a }, { locks: b }] = [await make(300), await make(300)];
    const lease = await a.acquire('renewed', { waitMs: 1000 });
    await sleep(1200);
    await expect(b.acquire('renewed', { waitMs: 100 })).rejects.toMatchObject({ code: 'conflict' });
    expect(lease.signal.aborted).toBe(false);
    await lease.release();
    await (await b.acquire('renewed', { waitMs: 500 })).release();
  });

  test('waiters in one process queue in it: each asks Redis once, when the lock is handed to it', async () => {
    const client = await redisClient();
    clients.push(client);
    let sets = 0;
    const counted = {
      set: (...args: Parameters<typeof client.set>) => {
        sets++;
        return client.set(...args);
      },
      eval: client.eval.bind(client),
    } as never;
    const locks = redisLocks(counted, { prefix });
    const first = await locks.acquire('queued', { waitMs: 1000 });
    const order: string[] = [];
    const waiters = ['second', 'third'].map(async (name) => {
      const lease = await locks.acquire('queued', { waitMs: 2000 });
      order.push(name);
      await lease.release();
    });
    await sleep(200);
    expect(sets).toBe(1);
    await first.release();
    await Promise.all(waiters);
    expect([sets, order]).toStrictEqual([3, ['second', 'third']]);
  });

  test('when Redis stops answering, every waiter queued in the process fails with 503 at once', async () => {
    const hung = { set: () => new Promise(() => {}), eval: () => new Promise(() => {}) } as never;
    const locks = redisLocks(hung, { prefix, commandTimeoutMs: 150 });
    const outcomes = await Promise.all(
      Array.from({ length: 5 }, () =>
        locks.acquire('hung', { waitMs: 500 }).then(
          () => 'taken',
          (error: { code?: string }) => error.code,
        ),
      ),
    );
    // One after another, each behind the last one's 150 ms deadline, the fifth would have run out of its wait (409).
    expect(outcomes).toStrictEqual(Array(5).fill('storage_unavailable'));
  });

  test('a failed command fails the waiters queued for its lock, not those of another lock', async () => {
    let sets = 0;
    // The second SET (the first of lock 'a') never answers; every other one takes its lock.
    const client = {
      set: () => (++sets === 2 ? new Promise(() => {}) : Promise.resolve('OK')),
      eval: async () => 1,
    } as never;
    const locks = redisLocks(client, { prefix, commandTimeoutMs: 150 });
    const outcome = (name: string) =>
      locks.acquire(name, { waitMs: 2000 }).then(
        async (lease) => {
          await lease.release();
          return 'taken';
        },
        (error: { code?: string }) => error.code,
      );
    const holder = await locks.acquire('b', { waitMs: 100 });
    const queued = [outcome('a'), outcome('a'), outcome('b')];
    // By now the command of lock a has failed, after the second waiter for lock b queued.
    await queued[0];
    await holder.release();
    expect([await Promise.all(queued), sets]).toStrictEqual([
      ['storage_unavailable', 'storage_unavailable', 'taken'],
      3,
    ]);
    // A waiter that comes after the failure asks Redis itself.
    expect([await outcome('a'), sets]).toStrictEqual(['taken', 4]);
  });

  test('a release that cannot reach Redis still frees the lock for the next waiter in the process', async () => {
    const failing = { set: async () => 'OK', eval: () => Promise.reject(new Error('connection lost')) } as never;
    const locks = redisLocks(failing, { prefix });
    const lease = await locks.acquire('unreleased', { waitMs: 100 });
    const twice = [lease.release(), lease.release()];
    expect(twice[0]).toBe(twice[1]);
    await expect(twice[0]).rejects.toMatchObject({ code: 'storage_unavailable' });
    await (await locks.acquire('unreleased', { waitMs: 100 })).release().catch(() => {});
  });

  test('a waiter queued in the process stops at its signal, with its reason', async () => {
    const { locks } = await make();
    const lease = await locks.acquire('abandoned', { waitMs: 100 });
    const gone = new AbortController();
    const waiting = locks.acquire('abandoned', { waitMs: 5_000, signal: gone.signal });
    gone.abort(new Error('client left'));
    await expect(waiting).rejects.toThrow('client left');
    await lease.release();
    await (await locks.acquire('abandoned', { waitMs: 100 })).release();
  });

  test('a lease taken over behind its back aborts its signal', async () => {
    const { client, locks } = await make(300);
    const lease = await locks.acquire('stolen', { waitMs: 1000 });
    const keys: string[] = [];
    for await (const batch of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 })) keys.push(...batch);
    await client.set(keys[0]!, 'someone else');
    await sleep(400);
    expect(lease.signal.aborted).toBe(true);
    expect(lease.signal.reason).toMatchObject({ code: 'storage_unavailable' });
    await lease.release();
    expect(await client.get(keys[0]!)).toBe('someone else');
  });
});

describe('postgresLocks', () => {
  const connect = async () => {
    const client = new pg.Client({ connectionString: DATABASE_URL });
    await client.connect();
    return client;
  };
  lockContractTests({ describe, test }, () => postgresLocks(connect), { shared: true });

  test('a lost connection aborts the leases held on it and frees the lock', async () => {
    let lockClient: pg.Client | undefined;
    const a = postgresLocks(async () => (lockClient = await connect()));
    const b = postgresLocks(connect);
    const lease = await a.acquire('connection-loss', { waitMs: 1000 });
    const admin = await connect();
    await admin.query('SELECT pg_terminate_backend($1)', [(lockClient as unknown as { processID: number }).processID]);
    await admin.end();
    for (let i = 0; i < 50 && !lease.signal.aborted; i++) await sleep(20);
    expect(lease.signal.aborted).toBe(true);
    await (await b.acquire('connection-loss', { waitMs: 2000 })).release();
    await lease.release();
    await (await a.acquire('connection-loss', { waitMs: 2000 })).release();
    await Promise.all([a.close?.(), b.close?.()]);
  });
});
