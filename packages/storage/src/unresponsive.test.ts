import { AgentHostError, type AgentRecord } from '@agenthost/core';
import pg from 'pg';
import { afterEach, expect, test } from 'vitest';
import { postgresLocks } from './locks/postgres-locks.js';
import { openStore } from './open-store.js';
import {
  agentRecord,
  clearRedis,
  DATABASE_URL,
  REDIS_URL,
  runNamespace,
  type TcpProxy,
  tcpProxy,
} from './test-services.js';

// A database that stops answering without closing the connection (a partition, a black-holed
// address): calls must still fail within their bounds, and the connection must recover by itself.
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
let proxy: TcpProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
});

async function code(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => 'resolved',
    (e: unknown) => e,
  );
  return AgentHostError.isInstance(error) ? error.code : String(error);
}

test('a Redis that stops answering: bounded errors, leases lost, a quick close, and recovery without a restart', async () => {
  const target = new URL(REDIS_URL);
  proxy = await tcpProxy({ host: target.hostname, port: Number(target.port || 6379) });
  const namespace = runNamespace('blackhole');
  const opened = await openStore(`redis://127.0.0.1:${proxy.port}`, {
    namespace,
    commandTimeoutMs: 500,
    lockLeaseMs: 1_200,
  });
  try {
    await opened.store.createAgent('acct', agentRecord('agt_1'));
    const lease = await opened.locks.acquire('held-across-the-outage', { waitMs: 1_000 });

    proxy.blackhole(true);
    let started = Date.now();
    // A raw command (the shared rate-limit counters') waits out the same deadline as the store's own.
    expect(await code(opened.redisCommand!(['GET', 'anything']))).toBe('storage_unavailable');
    expect(Date.now() - started).toBeGreaterThanOrEqual(450);
    expect(await code(opened.store.getAgent('acct', 'agt_1'))).toBe('storage_unavailable');
    expect(await code(opened.store.createAgent('acct', agentRecord('agt_2')))).toBe('storage_unavailable');
    expect(Date.now() - started).toBeLessThan(4_000);
    for (let i = 0; i < 40 && !lease.signal.aborted; i++) await sleep(50);
    expect(lease.signal.aborted).toBe(true);

    proxy.blackhole(false);
    let back: AgentRecord | undefined;
    started = Date.now();
    while (!back && Date.now() - started < 10_000) {
      back = await opened.store.getAgent('acct', 'agt_1').catch(() => undefined);
      if (!back) await sleep(100);
    }
    expect(back?.agent_id).toBe('agt_1');
    expect((await opened.store.listAgents('acct')).map((a) => a.agent_id)).toStrictEqual(['agt_1']);

    proxy.blackhole(true);
    started = Date.now();
    await opened.close();
    expect(Date.now() - started).toBeLessThan(2_000);
  } finally {
    proxy.blackhole(false);
    await clearRedis(namespace);
  }
}, 30_000);

test('a Postgres lock connection that stops answering is ended, so its locks cannot outlive it', async () => {
  const target = new URL(DATABASE_URL);
  proxy = await tcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  const proxied = new URL(DATABASE_URL);
  proxied.port = String(proxy.port);
  const connect = (url: string) => async () => {
    const client = new pg.Client({ connectionString: url });
    client.on('error', () => {});
    await client.connect();
    return client;
  };
  const a = postgresLocks(connect(proxied.toString()), { commandTimeoutMs: 300 });
  const b = postgresLocks(connect(DATABASE_URL));
  const held = await a.acquire('partitioned', { waitMs: 1_000 });
  proxy.blackhole(true);
  // A's next lock query misses its deadline: A ends its connection and loses what it held there.
  expect(await code(a.acquire('other', { waitMs: 1_000 }))).toBe('storage_unavailable');
  expect(held.signal.aborted).toBe(true);
  // The database frees A's locks once A's connection is gone, so B is not locked out.
  const lease = await b.acquire('partitioned', { waitMs: 5_000 });
  await lease.release();
  await held.release();
  await Promise.all([a.close?.(), b.close?.()]);
}, 30_000);
