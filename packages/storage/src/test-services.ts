// Test support (at `@agenthost/storage/test`): where the test servers are, and cleanup of what tests wrote.
// The Redis and PostgreSQL drivers are optional peers, loaded only when a cleanup needs them.

import { type AgentRecord, agentShape, type RunStore } from '@agenthost/core';
import { runStoreView } from '@agenthost/core/test';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
export const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** A namespace unique to this test run, so parallel runs and leftovers never meet. */
export const runNamespace = (label: string) => `t-${label}-${process.pid}-${Date.now().toString(36)}`;

/** Deletes every Redis key under `prefix`. */
export async function clearRedis(prefix: string): Promise<void> {
  const { createClient } = await import('@keyv/redis');
  const client = createClient({ url: REDIS_URL });
  await client.connect();
  try {
    for await (const keys of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 }))
      if (keys.length) await client.del(keys);
  } finally {
    client.destroy();
  }
}

/** Deletes every row of the store table under `prefix`, and the runs and run events of namespaces starting with it. */
export async function clearPostgres(prefix: string): Promise<void> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    const pattern = `${prefix.replace(/[\\%_]/g, '\\$&')}%`;
    await client.query(`DELETE FROM agenthost_kv WHERE key LIKE $1`, [pattern]);
    for (const table of ['agenthost_run_events', 'agenthost_runs']) {
      const { rows } = await client.query('SELECT to_regclass($1) IS NOT NULL AS present', [table]);
      if (rows[0]?.present) await client.query(`DELETE FROM ${table} WHERE namespace LIKE $1`, [pattern]);
    }
  } finally {
    await client.end();
  }
}

/** A TCP proxy to `target` on 127.0.0.1 that can stop forwarding (a black hole) and start again. */
export interface TcpProxy {
  port: number;
  blackhole(on: boolean): void;
  close(): Promise<void>;
}

/** Starts a {@link TcpProxy} to `target`. */
export async function tcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const { createServer, connect } = await import('node:net');
  let holed = false;
  const sockets = new Set<import('node:net').Socket>();
  const server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {});
    }
    client.on('data', (d) => {
      if (!holed) upstream.write(d);
    });
    upstream.on('data', (d) => {
      if (!holed) client.write(d);
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    blackhole: (on) => {
      holed = on;
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A minimal agent record for store tests: version 1, every setting at its default. */
export const agentRecord = (id: string): AgentRecord =>
  agentShape({
    agent_id: id,
    name: 'A',
    config: { agent_id: id, name: 'A', instruction: 'i', model: 'echo', tool: null, component: 'Chat' },
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
  });

/**
 * The run store of an opened store (`openStore(...)`), whose `close()` closes the whole opened
 * store: what a run-store contract suite needs to make and close stores of a backend.
 */
export function openedRuns(opened: { runs: RunStore; close(): Promise<void> }): RunStore {
  return runStoreView(opened.runs, { close: () => opened.close() });
}
