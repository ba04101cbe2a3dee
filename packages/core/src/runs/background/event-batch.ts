import type { StoredRun } from '../../ports/run-store.js';
import type { BackgroundRunEvent, RunEventRecord, RunStatus } from '../../records.js';

/**
 * Checks a batch of events for `RunStore.appendEvents`: ids that are consecutive whole numbers from
 * 1 (where they start against the stored events is the store's to judge).
 * @throws TypeError otherwise: a caller's bug, not a refusal.
 */
export function checkEventBatch(runId: string, events: readonly RunEventRecord[]): void {
  const first = events[0]?.id ?? 1;
  events.forEach(({ id }, i) => {
    if (!Number.isSafeInteger(id) || id < 1 || id !== first + i)
      throw new TypeError(`run ${runId}: event ids must be consecutive whole numbers from 1`);
  });
}

/** What a store knows of a finished run when it judges an append to it. */
export interface FinishedRunEnd {
  status: RunStatus;
  /** The code of the record's error (`null` without one). */
  errorCode: string | null;
  lastEventId: number;
}

/** What a store knows of a run when it judges an append to it. */
export interface AppendTarget {
  /** The id of the last event stored (0 for none). */
  last: number;
  /** The JSON of the stored events from the batch's first id on (at least those the batch repeats), in order. */
  held: readonly string[];
  /** Once the run finished, what its record says of its end: it then takes only its last event. */
  ended?: FinishedRunEnd;
}

/** What a run's record says of its end, for {@link AppendTarget} (nothing while it is unfinished). */
export function finishedRunEnd(run: Pick<StoredRun, 'status' | 'error' | 'last_event_id'>): { ended?: FinishedRunEnd } {
  if (run.status === 'queued' || run.status === 'running') return {};
  return { ended: { status: run.status, errorCode: run.error?.code ?? null, lastEventId: run.last_event_id } };
}

/**
 * Whether `event` is the last event the record of a finished run names: `done` for a `completed` or
 * `requires_approval` run, an `error` with the record's code for a `failed` or `cancelled` one.
 */
export function endsAsRecorded(event: BackgroundRunEvent, ended: FinishedRunEnd): boolean {
  if (event.type === 'done') return ended.status === 'completed' || ended.status === 'requires_approval';
  if (event.type !== 'error') return false;
  return (ended.status === 'failed' || ended.status === 'cancelled') && event.code === ended.errorCode;
}

/**
 * The events of a (checked) batch that an append stores: those past the run's last, when the batch
 * continues its events exactly (an id it holds must hold the same event, compared as JSON, as a
 * retried append sends); `undefined` when the append is refused: a gap, an id held with another
 * event, or a new event of a finished run other than its last alone (at exactly its
 * `last_event_id`, agreeing with its record).
 */
export function eventsToStore(events: readonly RunEventRecord[], run: AppendTarget): RunEventRecord[] | undefined {
  const first = events[0]?.id ?? run.last + 1;
  if (first > run.last + 1) return undefined;
  const repeated = events.filter((e) => e.id <= run.last);
  if (repeated.some((e, i) => JSON.stringify(e.event) !== run.held[i])) return undefined;
  const fresh = events.filter((e) => e.id > run.last);
  if (!run.ended || fresh.length === 0) return fresh;
  const [only] = events;
  if (events.length !== 1 || only!.id !== run.ended.lastEventId || !endsAsRecorded(only!.event, run.ended))
    return undefined;
  return fresh;
}
