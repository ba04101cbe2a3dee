import type { RunSignal } from '@agenthost/core';
import { createClient } from '@keyv/redis';
import { afterAll, describe, expect, test } from 'vitest';
import { openStore } from '../open-store.js';
import { openedRuns, runStoreContractTests } from '../test.js';
import { clearRedis, REDIS_URL, runNamespace } from '../test-services.js';
import type { RedisSubscriber } from './redis-run-signals.js';
import { RedisRunStore } from './redis-run-store.js';

const namespace = runNamespace('runs-redis');
afterAll(() => clearRedis(namespace));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const run = (overrides: Record<string, unknown> = {}) => ({
  run_id: `run-${Math.random().toString(36).slice(2)}`,
  account_id: 'acct',
  agent_id: 'agt',
  session_id: 'session',
  status: 'queued' as const,
  created_at: new Date().toISOString(),
  started_at: null,
  finished_at: null,
  result: null,
  error: null,
  last_event_id: 0,
  cancel_requested: false,
  owner: 'server-a',
  lease_until: Date.now() + 60_000,
  events_expire_at: null,
  expires_at: null,
  ...overrides,
});
/** The agent-list key whose zset holds `runId`. */
async function listKeyOf(client: Awaited<ReturnType<typeof open>>['client'], runId: string): Promise<string> {
  for (const key of await client.keys(`${namespace}:runs:agent:*`))
    if ((await client.zScore(key, runId)) !== null) return key;
  throw new Error(`no list holds ${runId}`);
}
const text = (id: number, delta: string) => ({ id, event: { type: 'text-delta' as const, delta } });

/** A store of its own on the test Redis, with a raw client beside it to look at the keys. */
async function open() {
  const client = createClient({ url: REDIS_URL });
  await client.connect();
  const name = `runs-test-${Math.random().toString(36).slice(2)}`;
  const store = new RedisRunStore({
    client: () => client,
    subscriber: () => client.duplicate({ name }) as unknown as RedisSubscriber,
    namespace,
  });
  const close = async () => {
    await store.close();
    client.destroy();
  };
  return { client, store, name, close };
}

describe('RedisRunStore', () => {
  runStoreContractTests({ describe, test }, async () => openedRuns(await openStore(REDIS_URL, { namespace })), {
    shared: true,
  });

  test("a finished run's hash, events and agent list expire at its times; it leaves the indexes", async () => {
    const { client, store, close } = await open();
    const r = run();
    await store.createRun(r, { maxInFlight: 10 });
    await store.appendEvents(r.run_id, [text(1, 'a')]);
    const now = Date.now();
    const end = { status: 'completed' as const, events_expire_at: now + 100_000, expires_at: now + 200_000 };
    await store.updateRun('acct', r.run_id, ['queued'], end);
    // An event the sweeper appends after the finishing update expires with the others.
    const ttl = async (key: string) => Number(await client.sendCommand(['PTTL', `${namespace}:${key}`]));
    const listTtl = Number(await client.sendCommand(['PTTL', await listKeyOf(client, r.run_id)]));
    expect(
      [await ttl(`run:${r.run_id}`), await ttl(`run-events:${r.run_id}`), listTtl].map((t) => Math.round(t / 10_000)),
    ).toStrictEqual([20, 10, 20]);
    expect(await client.sendCommand(['ZSCORE', `${namespace}:runs:leases`, r.run_id])).toBeNull();
    await close();
  });

  test('the last event appended after the finishing update expires with the run', async () => {
    const { client, store, close } = await open();
    const r = run();
    await store.createRun(r, { maxInFlight: 10 });
    const error = { code: 'server_lost', message: 'lost' };
    const end = { status: 'failed' as const, error, last_event_id: 1, events_expire_at: Date.now() + 50_000 };
    await store.updateRun('acct', r.run_id, ['queued'], end);
    expect(await store.appendEvents(r.run_id, [{ id: 1, event: { type: 'error', ...error } }])).toBe(true);
    expect(Math.round(Number(await client.sendCommand(['PTTL', `${namespace}:run-events:${r.run_id}`])) / 10_000)).toBe(
      5,
    );
    await close();
  });

  test("a run whose hash is gone (evicted, deleted) or finished stops holding its account's in-flight slot", async () => {
    const { client, store, close } = await open();
    const account = `acct-${Math.random().toString(36).slice(2)}`;
    const [gone, stale, next] = [
      run({ account_id: account }),
      run({ account_id: account }),
      run({ account_id: account }),
    ];
    expect(await store.createRun(gone, { maxInFlight: 1 })).toBe(true);
    await client.del(`${namespace}:run:${gone.run_id}`);
    expect(await store.createRun(stale, { maxInFlight: 1 })).toBe(true);
    // Finished by hand, the in-flight set left as it was.
    await client.hSet(`${namespace}:run:${stale.run_id}`, 'status', '"failed"');
    expect(await store.createRun(next, { maxInFlight: 1 })).toBe(true);
    expect(await store.createRun(run({ account_id: account }), { maxInFlight: 1 })).toBe(false);
    await close();
  });

  test('listing drops the entries of runs that are gone', async () => {
    const { client, store, close } = await open();
    const [kept, gone] = [run({ agent_id: 'listing' }), run({ agent_id: 'listing' })];
    for (const r of [kept, gone]) await store.createRun(r, { maxInFlight: 10 });
    await client.del(`${namespace}:run:${gone.run_id}`);
    expect(await store.listRuns('acct', 'listing', { limit: 10 })).toStrictEqual({ runs: [kept] });
    expect(await client.zRange(await listKeyOf(client, kept.run_id), 0, -1)).toStrictEqual([kept.run_id]);
    await close();
  });

  test('signals reach a subscriber again after its connection was cut', async () => {
    const { client, store, name, close } = await open();
    const heard: RunSignal[] = [];
    const unsubscribe = await store.subscribe('run-cut', (signal) => heard.push(signal));
    const line = String(await client.sendCommand(['CLIENT', 'LIST', 'TYPE', 'pubsub']))
      .split('\n')
      .find((l) => l.includes(` name=${name} `));
    await client.sendCommand(['CLIENT', 'KILL', 'ID', /\bid=(\d+)/.exec(line!)![1]!]);
    // The connection comes back by itself and subscribes again; a signal sent meanwhile may be lost.
    for (let i = 0; i < 100 && heard.length === 0; i++) {
      await store.publish('run-cut', { type: 'end' });
      await sleep(50);
    }
    expect(heard[0]).toStrictEqual({ type: 'end' });
    await unsubscribe();
    await close();
  });

  test('an unreachable Redis fails every call with StorageUnavailableError', async () => {
    const client = createClient({ url: 'redis://127.0.0.1:1', disableOfflineQueue: true });
    client.on('error', () => {});
    const store = new RedisRunStore({
      client: () => client,
      subscriber: () => client.duplicate({ socket: { reconnectStrategy: false } }) as unknown as RedisSubscriber,
      namespace,
      commandTimeoutMs: 1_000,
    });
    const calls = [
      store.createRun(run(), { maxInFlight: 1 }),
      store.getRun('acct', 'run'),
      store.listRuns('acct', 'agt', { limit: 1 }),
      store.updateRun('acct', 'run', ['queued'], { status: 'failed' }),
      store.appendEvents('run', [text(1, 'a')]),
      store.readEvents('run', 0, 1),
      store.publish('run', { type: 'end' }),
      store.subscribe('run', () => {}),
      store.expiredRuns(Date.now(), 1),
    ];
    const codes = await Promise.all(
      calls.map((call) => (call as Promise<unknown>).catch((e: { code?: string }) => e.code)),
    );
    expect(codes).toStrictEqual(calls.map(() => 'storage_unavailable'));
    await store.close();
  });
});
