import { ConflictError, StorageUnavailableError, inProcessLocks, type AcquireOptions, type Lease, type LockProvider } from '@agenthost/core';
import type pg from 'pg';

/** Options of {@link postgresLocks}. */
export interface PostgresLocksOptions {
  /** Pause between attempts while waiting, in ms; jittered (default 25). */
  pollMs?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Locks shared by every process on one Postgres database: session-level advisory locks
 * (`pg_try_advisory_lock`) held on one dedicated connection per process, which `connect` opens (and
 * opens again after a failure). A lock dies with its connection, so a crashed process frees its
 * locks; when the connection fails, every lease held on it aborts its `Lease.signal`.
 *
 * Advisory locks are re-entrant within one connection, so an in-process lock comes first: it keeps
 * two holders in this process apart, and the advisory lock keeps processes apart.
 */
export function postgresLocks(connect: () => Promise<pg.Client>, options: PostgresLocksOptions = {}): LockProvider {
  const pollMs = options.pollMs ?? 25;
  const local = inProcessLocks();
  let connection: Promise<pg.Client> | undefined;
  const held = new Set<AbortController>();

  function client(): Promise<pg.Client> {
    if (connection) return connection;
    const opening = connect().then(
      (c) => {
        let failed = false;
        const fail = (error?: unknown) => {
          if (failed) return;
          failed = true;
          if (connection === opening) connection = undefined;
          for (const lease of held) lease.abort(new StorageUnavailableError({ message: 'Lost a lock', cause: error }));
          held.clear();
          c.removeAllListeners('error');
          c.on('error', () => {});
          void c.end().catch(() => {});
        };
        c.on('error', fail);
        c.on('end', fail);
        return c;
      },
      (error: unknown) => {
        if (connection === opening) connection = undefined;
        throw error;
      },
    );
    connection = opening;
    return opening;
  }

  async function query(sql: string, key: string): Promise<boolean> {
    try {
      const c = await client();
      const { rows } = await c.query<{ ok: boolean }>(sql, [key]);
      return rows[0]?.ok === true;
    } catch (error) {
      throw new StorageUnavailableError({ message: 'The lock service is unavailable; retry later', cause: error });
    }
  }

  return {
    async acquire(key: string, { waitMs, signal }: AcquireOptions): Promise<Lease> {
      const deadline = Date.now() + waitMs;
      const inner = await local.acquire(key, { waitMs, ...(signal && { signal }) });
      try {
        for (;;) {
          signal?.throwIfAborted();
          if (await query('SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS ok', key)) break;
          const left = deadline - Date.now();
          if (left <= 0) throw new ConflictError({ message: `Gave up waiting ${waitMs} ms for a lock` });
          await sleep(Math.min(left, pollMs / 2 + Math.random() * pollMs));
        }
      } catch (error) {
        await inner.release();
        throw error;
      }
      const lost = new AbortController();
      held.add(lost);
      let released = false;
      return {
        signal: lost.signal,
        release: async () => {
          if (released) return;
          released = true;
          const wasHeld = held.delete(lost);
          try {
            // After a lost connection the lock is already gone with it.
            if (wasHeld) await query('SELECT pg_advisory_unlock(hashtextextended($1, 0)) AS ok', key);
          } finally {
            await inner.release();
          }
        },
      };
    },
    async close() {
      const c = await connection?.catch(() => undefined);
      connection = undefined;
      await c?.end().catch(() => {});
    },
  };
}
