import type { RunStore, StoredRun } from '../../ports/run-store.js';
import type { RunFailure } from '../../records.js';
import { hint } from './run-hints.js';
import { UNFINISHED_RUN_STATUSES } from './run-states.js';
import { errorEvent, expiryAt } from './run-views.js';

/** Why a run whose server stopped renewing its lease failed. */
export const SERVER_LOST: RunFailure = {
  code: 'server_lost',
  message: 'The server running the run stopped before it finished',
};

/** The id of a run's last event: its record's, or a later one written since (the record lags behind). */
async function lastEventId(runs: RunStore, run: StoredRun): Promise<number> {
  let last = run.last_event_id;
  for (;;) {
    const batch = await runs.readEvents(run.run_id, last, 100);
    last = batch.at(-1)?.id ?? last;
    if (batch.length < 100) return last;
  }
}

/**
 * Ends a run whose lease ran out as `failed` (`server_lost`): first the record, through a change
 * that applies only while the run is unfinished and its lease still ran out (so of several servers
 * only one does it, and never to a run that finished meanwhile, nor to one whose owner renewed its
 * lease since the run was found: its lease must still be before `leaseBefore`, by default `now`),
 * then its `error` event, then the `end` signal.
 * @returns whether this call ended it.
 */
export async function markLost(
  runs: RunStore,
  run: StoredRun,
  options: { now: number; leaseBefore?: number; eventRetentionMs: number; recordRetentionMs: number },
): Promise<boolean> {
  const id = (await lastEventId(runs, run)) + 1;
  const change = {
    status: 'failed' as const,
    error: SERVER_LOST,
    finished_at: new Date(options.now).toISOString(),
    last_event_id: id,
    ...expiryAt(options.now, options),
  };
  const ended = await runs.updateRun(run.account_id, run.run_id, UNFINISHED_RUN_STATUSES, change, {
    leaseBefore: options.leaseBefore ?? options.now,
  });
  if (!ended) return false;
  // The record is the truth: an event that cannot be stored now is rebuilt from it by its readers.
  await runs.appendEvents(run.run_id, [{ id, event: errorEvent(SERVER_LOST) }]).catch(() => undefined);
  await hint(runs, run.run_id, { type: 'events', id });
  await hint(runs, run.run_id, { type: 'end' });
  return true;
}
