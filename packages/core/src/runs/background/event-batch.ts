import type { RunEventRecord } from '../../records.js';

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

/** What a store knows of a run when it judges an append to it. */
export interface AppendTarget {
  /** The id of the last event stored (0 for none). */
  last: number;
  /** The JSON of the stored events from the batch's first id on (at least those the batch repeats), in order. */
  held: readonly string[];
  /** Whether the run finished: it then takes no event past `lastEventId`. */
  finished: boolean;
  lastEventId: number;
}

/**
 * The events of a (checked) batch that an append stores: those past the run's last, when the batch
 * continues its events exactly (an id it holds must hold the same event, compared as JSON, as a
 * retried append sends); `undefined` when the append is refused: a gap, an id held with another
 * event, or an event past a finished run's last.
 */
export function eventsToStore(events: readonly RunEventRecord[], run: AppendTarget): RunEventRecord[] | undefined {
  const first = events[0]?.id ?? run.last + 1;
  if (first > run.last + 1) return undefined;
  const repeated = events.filter((e) => e.id <= run.last);
  if (repeated.some((e, i) => JSON.stringify(e.event) !== run.held[i])) return undefined;
  const fresh = events.filter((e) => e.id > run.last);
  if (run.finished && (fresh.at(-1)?.id ?? 0) > run.lastEventId) return undefined;
  return fresh;
}
