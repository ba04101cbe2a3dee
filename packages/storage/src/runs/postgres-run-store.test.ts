import type { RunSignal } from '@agenthost/core';
import pg from 'pg';
import { afterAll, describe, expect, test } from 'vitest';
import { openStore } from '../open-store.js';
import { openedRuns, runStoreContractTests } from '../test.js';
import { clearPostgres, DATABASE_URL, runNamespace } from '../test-services.js';
import { PostgresRunStore, runChannel } from './postgres-run-store.js';

const namespace = runNamespace('runs-pg');
afterAll(() => clearPostgres(namespace));

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
const text = (id: number, delta: string) => ({ id, event: { type: 'text-delta' as const, delta } });

async function connect(url = DATABASE_URL) {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1_000 });
  client.on('error', () => {});
  await client.connect();
  return client;
}

/** A store of its own (in a namespace of its own) on a pool of its own. */
async function open(ns = namespace) {
  const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 4 });
  pool.on('error', () => {});
  const store = await PostgresRunStore.open(pool, { connect: () => connect(), namespace: ns });
  const close = async () => {
    await store.close();
    await pool.end();
  };
  return { pool, store, close };
}

describe('PostgresRunStore', () => {
  runStoreContractTests({ describe, test }, async () => openedRuns(await openStore(DATABASE_URL, { namespace })), {
    shared: true,
  });

  test('purge deletes the rows of what is due, and of that namespace only', async () => {
    const mine = await open();
    const theirs = await open(`${namespace}-other`);
    const now = Date.now();
    const end = { status: 'completed' as const, events_expire_at: now - 2, expires_at: now - 1 };
    const [a, b] = [run(), run()];
    for (const [{ store }, r] of [
      [mine, a],
      [theirs, b],
    ] as const) {
      await store.createRun(r, { maxInFlight: 10 });
      await store.appendEvents(r.run_id, [text(1, 'a')]);
      await store.updateRun('acct', r.run_id, ['queued'], end);
    }
    await mine.store.purge(now);
    const count = async (table: string, runId: string) =>
      (await mine.pool.query(`SELECT count(*)::int AS n FROM ${table} WHERE run_id = $1`, [runId])).rows[0].n;
    const left = async (runId: string) => [
      await count('agenthost_runs', runId),
      await count('agenthost_run_events', runId),
    ];
    expect([await left(a.run_id), await left(b.run_id)]).toStrictEqual([
      [0, 0],
      [1, 1],
    ]);
    await mine.close();
    await theirs.close();
  });

  test('the listening connection comes back after it was cut', async () => {
    const { pool, store, close } = await open();
    const heard: RunSignal[] = [];
    const unsubscribe = await store.subscribe('run-cut', (signal) => heard.push(signal));
    const listening = `LISTEN "${runChannel(namespace)}"`;
    const killed = await pool.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = $1', [
      listening,
    ]);
    expect(killed.rowCount).toBeGreaterThan(0);
    // A signal sent while it is away may be lost; once it listens again, signals come through.
    for (let i = 0; i < 100 && heard.length === 0; i++) {
      await store.publish('run-cut', { type: 'end' });
      await sleep(50);
    }
    expect(heard[0]).toStrictEqual({ type: 'end' });
    await unsubscribe();
    await close();
  });

  test('an unreachable database fails every call with StorageUnavailableError', async () => {
    const pool = new pg.Pool({
      connectionString: 'postgres://postgres@127.0.0.1:1/test',
      connectionTimeoutMillis: 500,
    });
    pool.on('error', () => {});
    const store = new PostgresRunStore(pool, {
      connect: () => connect('postgres://postgres@127.0.0.1:1/test'),
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
      store.purge(Date.now()),
    ];
    // Waiting for the listening connection leaves the process free meanwhile.
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 20);
    const codes = await Promise.all(
      calls.map((call) => (call as Promise<unknown>).catch((e: { code?: string }) => e.code)),
    );
    clearInterval(ticker);
    expect(codes).toStrictEqual(calls.map(() => 'storage_unavailable'));
    expect(ticks).toBeGreaterThan(10);
    await store.close();
    await pool.end();
  });
});
