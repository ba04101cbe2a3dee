import { eventsToStore, isFinishedRun, type RunEventRecord, type StoredRun } from '@agenthost/core';
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
  const { rows: runs } = await client.query<{ status: StoredRun['status']; last_event_id: string; purged: boolean }>(
    `SELECT status, last_event_id, events_purged AS purged FROM ${RUNS_TABLE}
     WHERE namespace = $1 AND run_id = $2 FOR UPDATE`,
    [namespace, runId],
  );
  const run = runs[0];
  if (!run || run.purged) return false;
  // A statement of its own, after the lock: it sees every event stored before the lock was granted.
  const { rows } = await client.query<{ last: string; held: string[] }>(
    `SELECT (SELECT COALESCE(max(id), 0) FROM ${EVENTS_TABLE} WHERE namespace = $1 AND run_id = $2) AS last,
       ARRAY(SELECT event FROM ${EVENTS_TABLE} WHERE namespace = $1 AND run_id = $2 AND id BETWEEN $3 AND $4
             ORDER BY id) AS held`,
    [namespace, runId, events[0]!.id, events.at(-1)!.id],
  );
  const { last, held } = rows[0]!;
  const finished = isFinishedRun(run.status);
  const fresh = eventsToStore(events, { last: Number(last), held, finished, lastEventId: Number(run.last_event_id) });
  if (!fresh) return false;
  await client.query(
    `INSERT INTO ${EVENTS_TABLE} (namespace, run_id, id, event)
     SELECT $1, $2, id, event FROM unnest($3::bigint[], $4::text[]) AS e(id, event)`,
    [namespace, runId, fresh.map(({ id }) => id), fresh.map(({ event }) => JSON.stringify(event))],
  );
  return true;
}
