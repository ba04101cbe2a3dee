import type { RunChange, RunStore, StoredRun } from '../../ports/run-store.js';
import type { RunEventRecord, RunFailure } from '../../records.js';
import { hint } from './run-hints.js';
import { UNFINISHED_RUN_STATUSES } from './run-states.js';
import { errorEvent, expiryAt } from './run-views.js';
import { lastStoredEvent } from './stored-events.js';

/** Why a run whose server stopped renewing its lease failed. */
export const SERVER_LOST: RunFailure = {
  code: 'server_lost',
  message: 'The server running the run stopped before it finished',
};

/**
 * How a run ends whose last stored event ended it already (its server went before the record said
 * so): `done` with its result (the turn is stored), or the `error`.
 */
function endedBy(last: RunEventRecord | undefined): RunChange | undefined {
  const event = last?.event;
  if (event?.type === 'done') return { status: event.result.status, result: event.result, error: null };
  if (event?.type !== 'error') return undefined;
  const error = { code: event.code, message: event.message };
  return { status: error.code === 'cancelled' ? 'cancelled' : 'failed', result: null, error };
}

/**
 * Ends a run whose lease ran out: first the record, through a change that applies only while the
 * run is unfinished and its lease still ran out (so of several servers only one does it, and never
 * to a run that finished meanwhile, nor to one whose owner renewed its lease since the run was
 * found: its lease must still be before `leaseBefore`, by default `now`), then the `end` signal. A
 * run whose last stored event is `done` or `error` ends as that event says; any other ends `failed`
 * (`server_lost`), with an `error` event after its last, written after the record.
 * @returns whether this call ended it.
 */
export async function markLost(
  runs: RunStore,
  run: StoredRun,
  options: { now: number; leaseBefore?: number; eventRetentionMs: number; recordRetentionMs: number },
): Promise<boolean> {
  const last = await lastStoredEvent(runs, run.run_id, run.last_event_id);
  const lastId = last?.id ?? run.last_event_id;
  const ended = endedBy(last);
  const change: RunChange = {
    ...(ended ?? { status: 'failed', error: SERVER_LOST }),
    finished_at: new Date(options.now).toISOString(),
    last_event_id: ended ? lastId : lastId + 1,
    ...expiryAt(options.now, options),
  };
  const leaseBefore = options.leaseBefore ?? options.now;
  if (!(await runs.updateRun(run.account_id, run.run_id, UNFINISHED_RUN_STATUSES, change, { leaseBefore })))
    return false;
  if (!ended) {
    // The record is the truth: an event that cannot be stored now is rebuilt from it by its readers.
    const id = lastId + 1;
    await runs.appendEvents(run.run_id, [{ id, event: errorEvent(SERVER_LOST) }]).catch(() => false);
    await hint(runs, run.run_id, { type: 'events', id });
  }
  await hint(runs, run.run_id, { type: 'end' });
  return true;
}
