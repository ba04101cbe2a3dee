import type { RunStore, StoredRun } from '../../ports/run-store.js';
import type { RunEventRecord } from '../../records.js';
import { invalidField } from '../../validation.js';
import { findRun } from './find-run.js';
import { listenForHints } from './run-hints.js';
import { isFinishedRun } from './run-states.js';
import { lastEventOf } from './run-views.js';
import { isLastEvent } from './stored-events.js';

/** Events read at once. */
const PAGE = 100;
/** How long a reader waits for a signal before it looks again (signals are hints). */
const POLL_MS = 1000;

/** Which events to read, and when to stop waiting for more. */
export interface ReadOptions {
  /** Only events with an id above this (default 0: all). */
  after?: number;
  /** Ends the iteration (quietly) when aborted. */
  signal?: AbortSignal;
}

/**
 * A background run's events with an id above `after`, as they are written, ending after the run's
 * last (`done` or `error`). A finished run whose last event is not among its stored events (they
 * expired, or its last could not be stored) yields it rebuilt from its record, with the id
 * `last_event_id` or, past the stored events the reader saw, the next.
 * @throws NotFoundError (before any event); InvalidInputError for an `after` that is not a whole number from 0.
 */
export async function readRunEvents(
  runs: RunStore,
  accountId: string,
  runId: string,
  { after = 0, signal }: ReadOptions = {},
): Promise<AsyncIterable<RunEventRecord>> {
  await findRun(runs, accountId, runId);
  if (!Number.isSafeInteger(after) || after < 0) throw invalidField('after', 'after must be a whole number from 0');
  return followEvents(runs, accountId, runId, after, signal);
}

async function* followEvents(
  runs: RunStore,
  accountId: string,
  runId: string,
  after: number,
  signal: AbortSignal | undefined,
): AsyncGenerator<RunEventRecord> {
  const waiter = new SignalWaiter();
  const unsubscribe = await listenForHints(runs, runId, () => waiter.wake());
  let yielded = false;
  try {
    while (!signal?.aborted) {
      waiter.reset();
      // The run before its events: a run read as finished has all of its events stored.
      const run = await runs.getRun(accountId, runId);
      if (!run) return;
      const batch = await runs.readEvents(runId, after, PAGE);
      for (const record of batch) {
        yield record;
        [after, yielded] = [record.id, true];
        if (isLastEvent(record)) return;
      }
      if (batch.length === PAGE) continue;
      if (isFinishedRun(run.status)) {
        if (yielded || (await lacksLastEvent(runs, run, after)))
          yield { ...lastEventOf(run), id: Math.max(after + 1, run.last_event_id) };
        return;
      }
      await waiter.wait(POLL_MS, signal);
    }
  } finally {
    await unsubscribe();
  }
}

/**
 * Whether a reader who starts after `after` and finds no more stored events of a finished run still
 * lacks its last: the run's last event was not stored (or expired), or the event at `after` (which
 * the reader saw) is not a last one (the stored events went past the record's `last_event_id`).
 */
async function lacksLastEvent(runs: RunStore, run: StoredRun, after: number): Promise<boolean> {
  if (after < run.last_event_id) return true;
  if (after === 0) return false;
  const [seen] = await runs.readEvents(run.run_id, after - 1, 1);
  return seen?.id === after && !isLastEvent(seen);
}

/** Waits for a wake-up, a timeout or an abort, whichever comes first; a wake-up since `reset` counts. */
class SignalWaiter {
  #woken = false;
  #resolve: (() => void) | undefined;

  reset(): void {
    this.#woken = false;
  }

  wake(): void {
    this.#woken = true;
    this.#resolve?.();
  }

  async wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
    if (this.#woken) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        this.#resolve = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#resolve = done;
      signal?.addEventListener('abort', done, { once: true });
    });
  }
}
