import type { RunStore } from '../../ports/run-store.js';
import type { RunEventRecord } from '../../records.js';
import { invalidField } from '../../validation.js';
import { findRun } from './find-run.js';
import { isFinishedRun } from './run-states.js';
import { lastEventOf } from './run-views.js';

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
 * last (`done` or `error`). A finished run whose events expired yields its last event only, rebuilt
 * from its record.
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

function isLast(record: RunEventRecord): boolean {
  return record.event.type === 'done' || record.event.type === 'error';
}

async function* followEvents(
  runs: RunStore,
  accountId: string,
  runId: string,
  after: number,
  signal: AbortSignal | undefined,
): AsyncGenerator<RunEventRecord> {
  const waiter = new SignalWaiter();
  const unsubscribe = await runs.subscribe(runId, () => waiter.wake());
  try {
    while (!signal?.aborted) {
      waiter.reset();
      // The run before its events: a run read as finished has all of its events stored.
      const run = await runs.getRun(accountId, runId);
      if (!run) return;
      const batch = await runs.readEvents(runId, after, PAGE);
      for (const record of batch) {
        yield record;
        after = record.id;
        if (isLast(record)) return;
      }
      if (batch.length === PAGE) continue;
      if (isFinishedRun(run.status)) {
        if (after < run.last_event_id) yield lastEventOf(run);
        return;
      }
      await waiter.wait(POLL_MS, signal);
    }
  } finally {
    await unsubscribe();
  }
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
