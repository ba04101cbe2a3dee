import type { RunStore } from '../../ports/run-store.js';
import type { BackgroundRunEvent, RunEventRecord } from '../../records.js';

/** Consecutive text deltas as one: fewer, larger events for readers and the store. */
export function mergeTextDeltas(events: readonly BackgroundRunEvent[]): BackgroundRunEvent[] {
  const merged: BackgroundRunEvent[] = [];
  for (const event of events) {
    const last = merged.at(-1);
    if (event.type === 'text-delta' && last?.type === 'text-delta')
      merged[merged.length - 1] = { type: 'text-delta', delta: last.delta + event.delta };
    else merged.push(event);
  }
  return merged;
}

/**
 * Writes one run's events to the run store in order, ids 1, 2, 3...: an event goes at once when no
 * write is in flight; those that come during a write wait and go together as the next batch (their
 * consecutive text deltas merged). After each batch, every server is told (`events` signal).
 * Writes only while `canWrite()` says so (the run's lease holds). A write that fails stops the writer
 * (`store_failed`); one the store refuses (the run finished, or its ids are taken) stops it as `lost`:
 * `onStop` is told once.
 */
export class RunEventWriter {
  readonly #runs: RunStore;
  readonly #runId: string;
  readonly #canWrite: () => boolean;
  readonly #onStop: (reason: 'store_failed' | 'lost') => void;
  #written = 0;
  #pending: BackgroundRunEvent[] = [];
  #draining: Promise<void> | undefined;
  #stopped = false;

  constructor(
    runs: RunStore,
    runId: string,
    options: { canWrite: () => boolean; onStop: (reason: 'store_failed' | 'lost') => void },
  ) {
    this.#runs = runs;
    this.#runId = runId;
    this.#canWrite = options.canWrite;
    this.#onStop = options.onStop;
  }

  /** The id of the last event written (0 before the first). */
  get lastId(): number {
    return this.#written;
  }

  /** Whether the writer stopped (a write failed or was refused): it writes nothing more. */
  get stopped(): boolean {
    return this.#stopped;
  }

  /** Queues an event (ignored once the writer stopped). */
  push(event: BackgroundRunEvent): void {
    if (this.#stopped) return;
    this.#pending.push(event);
    this.#draining ??= this.#drain();
  }

  /** Resolves once every queued event was written (or the writer stopped). */
  async flush(): Promise<void> {
    while (this.#draining) await this.#draining;
  }

  /** Stops writing: what is queued is dropped. */
  stop(): void {
    this.#stopped = true;
    this.#pending = [];
  }

  async #drain(): Promise<void> {
    try {
      while (this.#pending.length > 0 && !this.#stopped) await this.#write(mergeTextDeltas(this.#pending.splice(0)));
    } finally {
      this.#draining = undefined;
    }
  }

  async #write(batch: BackgroundRunEvent[]): Promise<void> {
    if (!this.#canWrite()) return this.#halt('lost');
    const records: RunEventRecord[] = batch.map((event, i) => ({ id: this.#written + 1 + i, event }));
    let stored: boolean;
    try {
      stored = await this.#runs.appendEvents(this.#runId, records);
    } catch {
      return this.#halt('store_failed');
    }
    // Refused: the run is no longer this server's to write (another ended it, or wrote these ids).
    if (!stored) return this.#halt('lost');
    this.#written += records.length;
    // A signal is a hint (readers poll too): a failed one fails nothing.
    await this.#runs.publish(this.#runId, { type: 'events', id: this.#written }).catch(() => undefined);
  }

  #halt(reason: 'store_failed' | 'lost'): void {
    this.stop();
    this.#onStop(reason);
  }
}
