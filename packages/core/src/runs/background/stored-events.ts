import type { RunStore } from '../../ports/run-store.js';
import type { RunEventRecord } from '../../records.js';

/** Events read at once. */
const PAGE = 100;

/** Whether an event is a run's last: `done` or `error`. */
export function isLastEvent(record: RunEventRecord): boolean {
  return record.event.type === 'done' || record.event.type === 'error';
}

/**
 * A run's last stored event, looking from the event of id `known` (one known to be stored: a record's
 * `last_event_id` lags behind the events, and a write that failed may have been stored after all).
 */
export async function lastStoredEvent(
  runs: RunStore,
  runId: string,
  known: number,
): Promise<RunEventRecord | undefined> {
  let last: RunEventRecord | undefined;
  let after = Math.max(0, known - 1);
  for (;;) {
    const batch = await runs.readEvents(runId, after, PAGE);
    last = batch.at(-1) ?? last;
    after = last?.id ?? after;
    if (batch.length < PAGE) return last;
  }
}
