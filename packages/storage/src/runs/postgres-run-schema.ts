import type { StoredRun } from '@agenthost/core';
import type pg from 'pg';
import { RUN_FIELDS } from './run-fields.js';

/** The table of runs: one row per run, one column per field (`result` and `error` as JSON text). */
export const RUNS_TABLE = 'agenthost_runs';
/** The table of run events: one row per event (the event as JSON text). */
export const EVENTS_TABLE = 'agenthost_run_events';

/** The statuses of an unfinished run, as SQL. */
export const UNFINISHED_SQL = `('queued', 'running')`;

// Every row carries its store's namespace, as every Keyv key does: deployments sharing a database
// never see each other's runs. Times are kept as the ISO strings the service wrote (read back as
// they were) and, for ordering, `created_ms`; ids are compared byte-wise (COLLATE "C"), as Redis does.
const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS ${RUNS_TABLE} (
    namespace text NOT NULL,
    run_id text NOT NULL,
    account_id text NOT NULL,
    agent_id text NOT NULL,
    session_id text NOT NULL,
    status text NOT NULL,
    created_at text NOT NULL,
    created_ms bigint NOT NULL,
    started_at text,
    finished_at text,
    result text,
    error text,
    last_event_id bigint NOT NULL,
    cancel_requested boolean NOT NULL,
    owner text NOT NULL,
    lease_until bigint NOT NULL,
    events_expire_at bigint,
    expires_at bigint,
    events_purged boolean NOT NULL DEFAULT false,
    PRIMARY KEY (namespace, run_id)
  )`,
  `CREATE INDEX IF NOT EXISTS ${RUNS_TABLE}_listing
    ON ${RUNS_TABLE} (namespace, account_id, agent_id, created_ms DESC, run_id COLLATE "C" DESC)`,
  `CREATE INDEX IF NOT EXISTS ${RUNS_TABLE}_in_flight
    ON ${RUNS_TABLE} (namespace, account_id) WHERE status IN ${UNFINISHED_SQL}`,
  `CREATE INDEX IF NOT EXISTS ${RUNS_TABLE}_leases
    ON ${RUNS_TABLE} (namespace, lease_until) WHERE status IN ${UNFINISHED_SQL}`,
  `CREATE INDEX IF NOT EXISTS ${RUNS_TABLE}_expiry ON ${RUNS_TABLE} (namespace, expires_at)
    WHERE expires_at IS NOT NULL AND status NOT IN ${UNFINISHED_SQL}`,
  `CREATE INDEX IF NOT EXISTS ${RUNS_TABLE}_events_expiry ON ${RUNS_TABLE} (namespace, events_expire_at)
    WHERE NOT events_purged AND events_expire_at IS NOT NULL AND status NOT IN ${UNFINISHED_SQL}`,
  `CREATE TABLE IF NOT EXISTS ${EVENTS_TABLE} (
    namespace text NOT NULL,
    run_id text NOT NULL,
    id bigint NOT NULL,
    event text NOT NULL,
    PRIMARY KEY (namespace, run_id, id)
  )`,
];

/** Every table and index {@link SCHEMA} makes. */
const RELATIONS = [
  RUNS_TABLE,
  EVENTS_TABLE,
  ...['listing', 'in_flight', 'leases', 'expiry', 'events_expiry'].map((index) => `${RUNS_TABLE}_${index}`),
];

/**
 * Creates the run tables and their indexes when they are missing. Servers starting at once take
 * turns (a transaction-level advisory lock), so none of them trips over another's half-made table.
 */
export async function createRunTables(pool: pg.Pool): Promise<void> {
  // Usually they exist: then take no lock at all (CREATE INDEX locks its table even when it skips).
  const { rows } = await pool.query<{ missing: number }>(
    'SELECT count(*)::int AS missing FROM unnest($1::text[]) AS name WHERE to_regclass(name) IS NULL',
    [RELATIONS],
  );
  if (rows[0]?.missing === 0) return;
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(`SELECT pg_advisory_xact_lock(hashtext('${RUNS_TABLE}'), 0)`);
    for (const statement of SCHEMA) await client.query(statement);
    await client.query('COMMIT');
    client.release();
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    client.release(true);
    throw error;
  }
}

/** The columns of a new run: its namespace, then every field, with `created_ms` (the list's order) after `created_at`. */
export const INSERT_COLUMNS: readonly string[] = [
  'namespace',
  ...RUN_FIELDS.flatMap((field) => (field === 'created_at' ? [field, 'created_ms'] : [field])),
];

/** The values of a new run's columns ({@link INSERT_COLUMNS}). */
export function runValues(namespace: string, run: StoredRun, createdMs: number): unknown[] {
  const values = RUN_FIELDS.flatMap((field) =>
    field === 'created_at' ? [run.created_at, createdMs] : [columnValue(field, run[field])],
  );
  return [namespace, ...values];
}

/** A changed field's column value: `result` and `error` as JSON text. */
export function columnValue(field: keyof StoredRun, value: unknown): unknown {
  return field === 'result' || field === 'error' ? json(value) : value;
}

const json = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));
const number = (value: string | number | null) => (value === null ? null : Number(value));

/** A row of the runs table as pg returns it (bigint columns as strings). */
export interface RunRow {
  run_id: string;
  account_id: string;
  agent_id: string;
  session_id: string;
  status: StoredRun['status'];
  created_at: string;
  created_ms: string;
  started_at: string | null;
  finished_at: string | null;
  result: string | null;
  error: string | null;
  last_event_id: string;
  cancel_requested: boolean;
  owner: string;
  lease_until: string;
  events_expire_at: string | null;
  expires_at: string | null;
}

/** The stored run a row holds. */
export function rowToRun(row: RunRow): StoredRun {
  return {
    run_id: row.run_id,
    account_id: row.account_id,
    agent_id: row.agent_id,
    session_id: row.session_id,
    status: row.status,
    created_at: row.created_at,
    started_at: row.started_at,
    finished_at: row.finished_at,
    result: row.result === null ? null : JSON.parse(row.result),
    error: row.error === null ? null : JSON.parse(row.error),
    last_event_id: Number(row.last_event_id),
    cancel_requested: row.cancel_requested,
    owner: row.owner,
    lease_until: Number(row.lease_until),
    events_expire_at: number(row.events_expire_at),
    expires_at: number(row.expires_at),
  };
}
