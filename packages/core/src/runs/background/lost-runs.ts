import type { RunChange, RunStore, StoredRun } from '../../ports/run-store.js';
import type { RunEventRecord, RunFailure } from '../../records.js';
import { hint } from './run-hints.js';
import { isFinishedRun, UNFINISHED_RUN_STATUSES } from './run-states.js';
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

/** How often a lost run's end is tried again when the owner stored an event meanwhile. */
const ATTEMPTS = 3;

/** When and how long what a lost run's end keeps is kept. */
export interface LostRunOptions {
  now: number;
  leaseBefore?: number;
  eventRetentionMs: number;
  recordRetentionMs: number;
}

/**
 * Ends a run whose lease ran out: first the record, through a change that applies only while the
 * run is unfinished and its lease still ran out (so of several servers only one does it, and never
 * to a run that finished meanwhile, nor to one whose owner renewed its lease since the run was
 * found: its lease must still be before `leaseBefore`, by default `now`), and its stored events
 * still end at the last one read (an owner's write sent before its lease ended may land meanwhile:
 * the last event is then read again, up to three times), then the `end` signal. A run whose last
 * stored event is `done` or `error` ends as that event says; any other ends `failed`
 * (`server_lost`), with an `error` event after its last, written after the record (a finished run
 * takes no other event).
 * @returns whether this call ended it.
 */
export async function markLost(runs: RunStore, run: StoredRun, options: LostRunOptions): Promise<boolean> {
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const last = await lastEventOfLostRun(runs, run);
    const lastId = last?.id ?? 0;
    const ended = endedBy(last);
    const change: RunChange = {
      ...(ended ?? { status: 'failed', error: SERVER_LOST }),
      finished_at: new Date(options.now).toISOString(),
      last_event_id: ended ? lastId : lastId + 1,
      ...expiryAt(options.now, options),
    };
    const leaseBefore = options.leaseBefore ?? options.now;
    const condition = { leaseBefore, eventsEndAt: lastId };
    if (await runs.updateRun(run.account_id, run.run_id, UNFINISHED_RUN_STATUSES, change, condition)) {
      if (!ended) await appendLostError(runs, run.run_id, lastId + 1);
      await hint(runs, run.run_id, { type: 'end' });
      return true;
    }
    if (!(await mayStillBeLost(runs, run, leaseBefore))) return false;
  }
  return false;
}

/**
 * A lost run's last stored event, looking from its `last_event_id` and, when none is stored there
 * (a record that says more than is stored), from the start.
 */
async function lastEventOfLostRun(runs: RunStore, run: StoredRun): Promise<RunEventRecord | undefined> {
  const last = await lastStoredEvent(runs, run.run_id, run.last_event_id);
  return last ?? (run.last_event_id > 1 ? lastStoredEvent(runs, run.run_id, 0) : undefined);
}

/** Whether a run whose end failed may have failed only for an event stored meanwhile. */
async function mayStillBeLost(runs: RunStore, run: StoredRun, leaseBefore: number): Promise<boolean> {
  const now = await runs.getRun(run.account_id, run.run_id);
  return now !== undefined && !isFinishedRun(now.status) && now.lease_until < leaseBefore;
}

/**
 * Writes the `error` event of a run ended as lost at `id`, the id its record names; a refused write
 * (or one that failed) is tried once more, unless an event is stored there by then. The record is
 * the truth: an event that cannot be stored is rebuilt from it by its readers.
 */
async function appendLostError(runs: RunStore, runId: string, id: number): Promise<void> {
  const append = () => runs.appendEvents(runId, [{ id, event: errorEvent(SERVER_LOST) }]).catch(() => false);
  if (!(await append())) {
    const stored = await lastStoredEvent(runs, runId, id - 1).catch(() => undefined);
    if ((stored?.id ?? 0) < id) await append();
  }
  await hint(runs, runId, { type: 'events', id });
}
