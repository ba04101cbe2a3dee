import { createHash } from 'node:crypto';
import {
  ConflictError,
  checkEventBatch,
  type RunChange,
  type RunCondition,
  type RunEventRecord,
  type RunPage,
  type RunSignal,
  type RunStatus,
  type RunStore,
  type StoredRun,
} from '@agenthost/core';
import type pg from 'pg';
import { storageCall } from '../deadline.js';
import { appendRunEvents, eventsEndAt } from './postgres-run-events.js';
import { PostgresRunListener } from './postgres-run-listener.js';
import {
  columnValue,
  createRunTables,
  EVENTS_TABLE,
  INSERT_COLUMNS,
  RUNS_TABLE,
  type RunRow,
  rowToRun,
  runValues,
  UNFINISHED_SQL,
} from './postgres-run-schema.js';
import { changeEntries, checkNewRun, isCursor, isLimit } from './run-fields.js';

/** Options of {@link PostgresRunStore}. */
export interface PostgresRunStoreOptions {
  /** Opens the dedicated connection that listens for signals (with an error listener on it). */
  connect: () => Promise<pg.Client>;
  /** The store's namespace: its rows carry it, and its signals go on a channel of its own. */
  namespace: string;
  /** Bound on each query, in ms (default 5 000). */
  commandTimeoutMs?: number;
  /** Receives the listening connection's errors (default: ignored). */
  onError?: (error: unknown) => void;
}

/** Runs deleted by one statement of `purge`; it goes on while statements delete that many. */
const PURGE_BATCH = 500;
const UNIQUE_VIOLATION = '23505';

/** The notification channel of a namespace: a short identifier whatever the namespace's length. */
export const runChannel = (namespace: string) =>
  `agenthost_runs_${createHash('sha256').update(namespace).digest('hex').slice(0, 20)}`;

/**
 * The {@link RunStore} on PostgreSQL, on a pool the caller owns: the tables `agenthost_runs` (one
 * row per run) and `agenthost_run_events` (one row per event), both keyed by namespace first.
 * `createRun` counts the account's unfinished runs and inserts in one transaction under an advisory
 * transaction lock of the account; `updateRun` is one `UPDATE ... WHERE status = ANY(...)`. Signals
 * are `pg_notify` on the namespace's channel, heard by a {@link PostgresRunListener}. Nothing expires
 * by itself: `purge` deletes finished runs past `expires_at` and events past `events_expire_at`.
 */
export class PostgresRunStore implements RunStore {
  readonly #pool: pg.Pool;
  readonly #ns: string;
  readonly #timeoutMs: number;
  readonly #channel: string;
  readonly #listener: PostgresRunListener;

  /** Creates the tables when they are missing, then the store. */
  static async open(pool: pg.Pool, options: PostgresRunStoreOptions): Promise<PostgresRunStore> {
    await createRunTables(pool);
    return new PostgresRunStore(pool, options);
  }

  /** The store on `pool`, whose tables exist (see {@link PostgresRunStore.open}). */
  constructor(pool: pg.Pool, options: PostgresRunStoreOptions) {
    this.#pool = pool;
    this.#ns = options.namespace;
    this.#timeoutMs = options.commandTimeoutMs ?? 5_000;
    this.#channel = runChannel(options.namespace);
    this.#listener = new PostgresRunListener({
      connect: options.connect,
      channel: this.#channel,
      commandTimeoutMs: this.#timeoutMs,
      onError: options.onError ?? (() => {}),
    });
  }

  async createRun(run: StoredRun, { maxInFlight }: { maxInFlight: number }): Promise<boolean> {
    const created = checkNewRun(run);
    const placeholders = INSERT_COLUMNS.map((_, i) => `$${i + 1}`).join(', ');
    return this.#transaction(async (client) => {
      // Runs of one account are created one at a time, so the count and the insert are one step.
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))', [
        `${RUNS_TABLE}:${this.#ns}`,
        run.account_id,
      ]);
      const { rows } = await client.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM ${RUNS_TABLE} WHERE namespace = $1 AND account_id = $2 AND status IN ${UNFINISHED_SQL}`,
        [this.#ns, run.account_id],
      );
      if ((rows[0]?.n ?? 0) >= maxInFlight) return false;
      await client.query(
        `INSERT INTO ${RUNS_TABLE} (${INSERT_COLUMNS.join(', ')}) VALUES (${placeholders})`,
        runValues(this.#ns, run, created),
      );
      return true;
    }).catch((error: unknown) => {
      if (causeCode(error) === UNIQUE_VIOLATION)
        throw new ConflictError({ message: `A run ${run.run_id} exists already` });
      throw error;
    });
  }

  async getRun(accountId: string, runId: string): Promise<StoredRun | undefined> {
    const rows = await this.#query<RunRow>(
      `SELECT * FROM ${RUNS_TABLE} WHERE namespace = $1 AND run_id = $2 AND account_id = $3`,
      [this.#ns, runId, accountId],
    );
    return rows[0] && rowToRun(rows[0]);
  }

  /** `before` and `next` are creation times (epoch ms); a page never splits the runs of one millisecond. */
  async listRuns(accountId: string, agentId: string, options: { limit: number; before?: number }): Promise<RunPage> {
    const { limit, before } = options;
    if (!isCursor(before) || !isLimit(limit)) return { runs: [] };
    const agentRuns = `namespace = $1 AND account_id = $2 AND agent_id = $3`;
    // The page: every run created before `before` and no earlier than the limit-th newest of them.
    const rows = await this.#query<RunRow & { more: boolean }>(
      `WITH bound AS (
         SELECT created_ms FROM ${RUNS_TABLE} WHERE ${agentRuns} AND created_ms < $4
         ORDER BY created_ms DESC OFFSET $5 LIMIT 1)
       SELECT *, EXISTS (
         SELECT 1 FROM ${RUNS_TABLE} WHERE ${agentRuns} AND created_ms < (SELECT created_ms FROM bound)) AS more
       FROM ${RUNS_TABLE} WHERE ${agentRuns} AND created_ms < $4
         AND created_ms >= COALESCE((SELECT created_ms FROM bound), 0)
       ORDER BY created_ms DESC, run_id COLLATE "C" DESC`,
      [this.#ns, accountId, agentId, before ?? Number.MAX_SAFE_INTEGER, limit - 1],
    );
    const runs = rows.map(rowToRun);
    const last = rows.at(-1);
    return last?.more ? { runs, next: Number(last.created_ms) } : { runs };
  }

  async updateRun(
    accountId: string,
    runId: string,
    from: readonly RunStatus[],
    change: RunChange,
    condition: RunCondition = {},
  ): Promise<StoredRun | undefined> {
    const entries = changeEntries(change);
    const { leaseBefore } = condition;
    if (leaseBefore !== undefined && !Number.isFinite(leaseBefore)) return undefined;
    const values: unknown[] = [this.#ns, runId, accountId, [...from]];
    let leased = '';
    if (leaseBefore !== undefined) {
      // Whole milliseconds: below a fraction is below its ceiling.
      values.push(Math.ceil(leaseBefore));
      leased = ` AND lease_until < $${values.length}`;
    }
    const sets = entries.map(([field, value]) => {
      values.push(columnValue(field, value));
      return `${field} = $${values.length}`;
    });
    // New event expiry: the events are due for purging (again) then.
    if (change.events_expire_at !== undefined) sets.push('events_purged = false');
    const sql = `UPDATE ${RUNS_TABLE} SET ${sets.length ? sets.join(', ') : 'status = status'}
       WHERE namespace = $1 AND run_id = $2 AND account_id = $3 AND status = ANY($4::text[])${leased} RETURNING *`;
    const { eventsEndAt: endAt } = condition;
    const rows =
      endAt === undefined
        ? await this.#query<RunRow>(sql, values)
        : // Under the run's row lock, which appends take too: no event lands between the check and the change.
          await this.#transaction(async (client) =>
            (await eventsEndAt(client, this.#ns, runId, endAt)) ? (await client.query<RunRow>(sql, values)).rows : [],
          );
    return rows[0] && rowToRun(rows[0]);
  }

  async appendEvents(runId: string, events: readonly RunEventRecord[]): Promise<boolean> {
    checkEventBatch(runId, events);
    if (events.length === 0) return true;
    return this.#transaction((client) => appendRunEvents(client, this.#ns, runId, events));
  }

  async readEvents(runId: string, after: number, limit: number): Promise<RunEventRecord[]> {
    if (!Number.isSafeInteger(after) || after < 0 || !isLimit(limit)) return [];
    const rows = await this.#query<{ id: string; event: string }>(
      `SELECT id, event FROM ${EVENTS_TABLE} WHERE namespace = $1 AND run_id = $2 AND id > $3 ORDER BY id LIMIT $4`,
      [this.#ns, runId, after, limit],
    );
    return rows.map((row) => ({ id: Number(row.id), event: JSON.parse(row.event) }));
  }

  async publish(runId: string, signal: RunSignal): Promise<void> {
    await this.#query('SELECT pg_notify($1, $2)', [this.#channel, JSON.stringify([runId, signal])]);
  }

  async subscribe(runId: string, listener: (signal: RunSignal) => void): Promise<() => Promise<void>> {
    const remove = await this.#listener.listen(runId, listener);
    return async () => remove();
  }

  async expiredRuns(now: number, limit: number): Promise<StoredRun[]> {
    if (!isLimit(limit)) return [];
    const rows = await this.#query<RunRow>(
      `SELECT * FROM ${RUNS_TABLE} WHERE namespace = $1 AND status IN ${UNFINISHED_SQL} AND lease_until < $2
       ORDER BY lease_until LIMIT $3`,
      [this.#ns, now, limit],
    );
    return rows.map(rowToRun);
  }

  async purge(now: number): Promise<void> {
    for (let i = 0; i < 20; i++) if ((await this.#purgeEvents(now)) < PURGE_BATCH) break;
    for (let i = 0; i < 20; i++) if ((await this.#purgeRuns(now)) < PURGE_BATCH) break;
  }

  async close(): Promise<void> {
    this.#listener.close();
  }

  /** Deletes the events of up to a batch of finished runs past `events_expire_at`; returns how many runs. */
  async #purgeEvents(now: number): Promise<number> {
    const rows = await this.#query<{ n: number }>(
      `WITH due AS (
         SELECT run_id FROM ${RUNS_TABLE}
         WHERE namespace = $1 AND NOT events_purged AND events_expire_at <= $2 AND status NOT IN ${UNFINISHED_SQL}
         LIMIT ${PURGE_BATCH} FOR UPDATE SKIP LOCKED),
       marked AS (
         UPDATE ${RUNS_TABLE} r SET events_purged = true FROM due
         WHERE r.namespace = $1 AND r.run_id = due.run_id RETURNING r.run_id),
       gone AS (
         DELETE FROM ${EVENTS_TABLE} e USING marked WHERE e.namespace = $1 AND e.run_id = marked.run_id)
       SELECT count(*)::int AS n FROM marked`,
      [this.#ns, now],
    );
    return rows[0]?.n ?? 0;
  }

  /** Deletes up to a batch of finished runs past `expires_at`, with their events; returns how many. */
  async #purgeRuns(now: number): Promise<number> {
    const rows = await this.#query<{ n: number }>(
      `WITH due AS (
         SELECT run_id FROM ${RUNS_TABLE}
         WHERE namespace = $1 AND expires_at <= $2 AND status NOT IN ${UNFINISHED_SQL}
         LIMIT ${PURGE_BATCH} FOR UPDATE SKIP LOCKED),
       gone AS (
         DELETE FROM ${RUNS_TABLE} r USING due WHERE r.namespace = $1 AND r.run_id = due.run_id RETURNING r.run_id),
       events AS (
         DELETE FROM ${EVENTS_TABLE} e USING gone WHERE e.namespace = $1 AND e.run_id = gone.run_id)
       SELECT count(*)::int AS n FROM gone`,
      [this.#ns, now],
    );
    return rows[0]?.n ?? 0;
  }

  /** One query on the pool within the command bound; any failure becomes a `StorageUnavailableError`. */
  async #query<R extends pg.QueryResultRow>(sql: string, values: unknown[]): Promise<R[]> {
    return this.#call(async () => (await this.#pool.query<R>(sql, values)).rows);
  }

  /** Runs `work` in a transaction on one pooled connection, within the command bound. */
  async #transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    return this.#call(async () => {
      const client = await this.#pool.connect();
      try {
        await client.query('BEGIN');
        const result = await work(client);
        await client.query('COMMIT');
        client.release();
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        // A connection whose transaction state is unknown is not given back to the pool.
        client.release(true);
        throw error;
      }
    });
  }

  #call<T>(work: () => Promise<T>): Promise<T> {
    return storageCall(work, this.#timeoutMs);
  }
}

/** The SQLSTATE of the driver error a `StorageUnavailableError` carries. */
function causeCode(error: unknown): string | undefined {
  return (error as { cause?: { code?: string } }).cause?.code;
}
