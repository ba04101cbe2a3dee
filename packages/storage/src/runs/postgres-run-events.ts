import { eventsToStore, finishedRunEnd, type RunEventRecord, type StoredRun } from '@agenthost/core';
import type pg from 'pg';
import { EVENTS_TABLE, RUNS_TABLE } from './postgres-run-schema.js';

/**
 * Appends a checked batch of events to a run, inside the caller's transaction on `client`, by the
 * rules of `RunStore.appendEvents`: it locks the run's row first, so that appends to one run, and
 * the change that finishes it, take turns; then it judges the batch against the stored events and
 * inserts those past the last.
 * @returns whether the batch is stored (or already was); `false` when refused.
 */
export async function appendRunEvents(
  client: pg.PoolClient,
  namespace: string,
  runId: string,
  events: readonly RunEventRecord[],
): Promise<boolean> {
  const run = await lockRun(client, namespace, runId);
  if (!run || run.purged) return false;
  // A statement of its own, after the lock: it sees every event stored before the lock was granted.
  const { rows } = await client.query<{ last: string; held: string[] }>(
    `SELECT (SELECT COALESCE(max(id), 0) FROM ${EVENTS_TABLE} WHERE namespace = $1 AND run_id = $2) AS last,
       ARRAY(SELECT event FROM ${EVENTS_TABLE} WHERE namespace = $1 AND run_id = $2 AND id BETWEEN $3 AND $4
             ORDER BY id) AS held`,
    [namespace, runId, events[0]!.id, events.at(-1)!.id],
  );
  const { last, held } = rows[0]!;
  const error = run.error === null ? null : (JSON.parse(run.error) as StoredRun['error']);
  const ended = finishedRunEnd({ status: run.status, error, last_event_id: Number(run.last_event_id) });
  const fresh = eventsToStore(events, { last: Number(last), held, ...ended });
  if (!fresh) return false;
  await client.query(
    `INSERT INTO ${EVENTS_TABLE} (namespace, run_id, id, event)
     SELECT $1, $2, id, event FROM unnest($3::bigint[], $4::text[]) AS e(id, event)`,
    [namespace, runId, fresh.map(({ id }) => id), fresh.map(({ event }) => JSON.stringify(event))],
  );
  return true;
}

/** What an append or a change judges of a run, read under its row lock. */
interface LockedRun {
  status: StoredRun['status'];
  error: string | null;
  last_event_id: string;
  purged: boolean;
}

/**
 * Locks the run's row (`FOR UPDATE`) in the caller's transaction: appends to one run, and the
 * changes that depend on its events, take turns.
 */
async function lockRun(client: pg.PoolClient, namespace: string, runId: string): Promise<LockedRun | undefined> {
  const { rows } = await client.query<LockedRun>(
    `SELECT status, error, last_event_id, events_purged AS purged FROM ${RUNS_TABLE}
     WHERE namespace = $1 AND run_id = $2 FOR UPDATE`,
    [namespace, runId],
  );
  return rows[0];
}

/**
 * Whether the run's stored events end exactly at `id` (0: none stored), judged under its row lock
 * (taken here, in the caller's transaction), so that no append lands before the caller's change.
 */
export async function eventsEndAt(
  client: pg.PoolClient,
  namespace: string,
  runId: string,
  id: number,
): Promise<boolean> {
  if (!(await lockRun(client, namespace, runId))) return false;
  // A statement of its own, after the lock: it sees every event stored before the lock was granted.
  const { rows } = await client.query<{ last: string }>(
    `SELECT COALESCE(max(id), 0) AS last FROM ${EVENTS_TABLE} WHERE namespace = $1 AND run_id = $2`,
    [namespace, runId],
  );
  return Number(rows[0]!.last) === id;
}
