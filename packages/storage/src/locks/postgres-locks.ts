import {
  type AcquireOptions,
  ConflictError,
  inProcessLocks,
  type Lease,
  type LockProvider,
  StorageUnavailableError,
} from '@agenthost/core';
import type pg from 'pg';
import { withDeadline } from '../deadline.js';
import { pollDelay } from './poll-delay.js';

/** Options of {@link postgresLocks}. */
export interface PostgresLocksOptions {
  /**
   * Longest pause between attempts while waiting for a lock another process holds, in ms; pauses start
   * at 1 ms and double up to it, jittered (default 25).
   */
  pollMs?: number;
  /** Bound on each lock query, in ms (default 2 000). */
  commandTimeoutMs?: number;
}

interface Connection {
  ready: Promise<pg.Client>;
  client?: pg.Client;
  /** Leases held on this connection; all are lost with it. */
  held: Set<AbortController>;
  /** Lock queries run one at a time. */
  chain: Promise<unknown>;
  dead: boolean;
}

const TRY = 'SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS ok';
const UNLOCK = 'SELECT pg_advisory_unlock(hashtextextended($1, 0)) AS ok';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Opens a lock connection with `connect`; `end` runs when its client fails, errors or ends. */
function openConnection(
  connect: () => Promise<pg.Client>,
  end: (conn: Connection, error: unknown) => void,
): Connection {
  const conn: Connection = { ready: undefined as never, held: new Set(), chain: Promise.resolve(), dead: false };
  conn.ready = connect().then(
    (client) => {
      conn.client = client;
      client.on('error', (error) => end(conn, error));
      client.on('end', () => end(conn, new Error('the lock connection ended')));
      if (conn.dead) end(conn, new Error('closed'));
      return client;
    },
    (error: unknown) => {
      end(conn, error);
      throw error;
    },
  );
  conn.ready.catch(() => {});
  return conn;
}

/** Aborts every lease held on a connection that is gone and closes its client at once. */
function abandonConnection(conn: Connection, error: unknown): void {
  for (const lease of conn.held) lease.abort(new StorageUnavailableError({ message: 'Lost a lock', cause: error }));
  conn.held.clear();
  const client = conn.client;
  conn.client = undefined;
  if (client) {
    client.removeAllListeners('error');
    client.removeAllListeners('end');
    client.on('error', () => {});
    // Close the socket at once: a connection that stopped answering would hold up a polite end.
    (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
    void client.end().catch(() => {});
  }
}

/**
 * Runs one lock query on a connection, after the queries before it, within `commandTimeoutMs`.
 * A failure ends the connection (through `end`) and becomes a `StorageUnavailableError`.
 */
async function runLockQuery(
  conn: Connection,
  sql: string,
  key: string,
  commandTimeoutMs: number,
  end: (conn: Connection, error: unknown) => void,
): Promise<boolean> {
  const run = conn.chain.then(async () => {
    const client = await conn.ready;
    if (conn.dead) throw new Error('the lock connection ended');
    const { rows } = await withDeadline(() => client.query<{ ok: boolean }>(sql, [key]), commandTimeoutMs);
    return rows[0]?.ok === true;
  });
  conn.chain = run.catch(() => {});
  try {
    return await run;
  } catch (error) {
    end(conn, error);
    throw new StorageUnavailableError({ message: 'The lock service is unavailable; retry later', cause: error });
  }
}

/**
 * The lease of an advisory lock taken on `conn`: its signal aborts when the connection is lost;
 * releasing it unlocks the advisory lock (unless the connection is gone) and then the in-process one.
 */
function advisoryLease(
  conn: Connection,
  key: string,
  inner: Lease,
  unlock: (conn: Connection, key: string) => Promise<boolean>,
): Lease {
  const lost = new AbortController();
  conn.held.add(lost);
  let released = false;
  return {
    signal: lost.signal,
    release: async () => {
      if (released) return;
      released = true;
      try {
        // After a lost connection the lock is already gone with it; a failed unlock ends the connection.
        if (conn.held.delete(lost) && !conn.dead) await unlock(conn, key).catch(() => {});
      } finally {
        await inner.release();
      }
    },
  };
}

/**
 * Locks shared by every process on one Postgres database: session-level advisory locks
 * (`pg_try_advisory_lock`) held on one dedicated connection per process, which `connect` opens
 * (again after a failure). A lock lives as long as its connection: when the connection ends, the
 * database frees its locks, and every lease held on it aborts its `Lease.signal`.
 *
 * Any lock query that fails or misses its deadline ends the connection, so a query that went
 * through after its caller gave up cannot leave a lock behind. Advisory locks are re-entrant within
 * one connection, so an in-process lock comes first: it keeps two holders in this process apart,
 * and the advisory lock keeps processes apart.
 */
export function postgresLocks(connect: () => Promise<pg.Client>, options: PostgresLocksOptions = {}): LockProvider {
  const pollMs = options.pollMs ?? 25;
  const commandTimeoutMs = options.commandTimeoutMs ?? 2_000;
  const local = inProcessLocks();
  let current: Connection | undefined;
  let closed = false;

  function end(conn: Connection, error: unknown): void {
    if (conn.dead && !conn.client) return;
    conn.dead = true;
    if (current === conn) current = undefined;
    abandonConnection(conn, error);
  }

  const query = (conn: Connection, sql: string, key: string) => runLockQuery(conn, sql, key, commandTimeoutMs, end);

  return {
    async acquire(key: string, { waitMs, signal }: AcquireOptions): Promise<Lease> {
      if (closed) throw new StorageUnavailableError({ message: 'The lock service is closed' });
      const deadline = Date.now() + waitMs;
      const inner = await local.acquire(key, { waitMs, ...(signal && { signal }) });
      let conn: Connection;
      try {
        for (let attempt = 0; ; attempt++) {
          signal?.throwIfAborted();
          conn = current ??= openConnection(connect, end);
          if ((await query(conn, TRY, key)) && !conn.dead) break;
          const left = deadline - Date.now();
          if (left <= 0) throw new ConflictError({ message: `Gave up waiting ${waitMs} ms for a lock` });
          await sleep(Math.min(left, pollDelay(attempt, pollMs)));
        }
      } catch (error) {
        await inner.release();
        throw error;
      }
      return advisoryLease(conn, key, inner, (c, k) => query(c, UNLOCK, k));
    },
    async close() {
      closed = true;
      if (current) end(current, new Error('closed'));
    },
  };
}
