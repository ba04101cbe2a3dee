import type { RunStore } from '../../ports/run-store.js';
import { UNFINISHED_RUN_STATUSES } from './run-states.js';

/** What the owner of a run learns from renewing its lease. */
export interface LeaseEvents {
  /** Someone asked to cancel the run (a fallback for a cancel signal that was lost). */
  onCancel: () => void;
  /** The run is no longer this server's: finished by another (as lost), or the lease ran out unrenewed. */
  onLost: () => void;
}

/** The run a lease is for, and how. */
export interface LeaseOptions {
  runs: RunStore;
  accountId: string;
  runId: string;
  /** Until when (epoch ms) the lease runs now. */
  until: number;
  leaseMs: number;
  now: () => number;
  /** The id of the run's last event written, kept with each renewal. */
  lastEventId: () => number;
}

/**
 * The lease of a run this server runs: renewed every third of `leaseMs`, so that other servers see
 * the run is alive. While renewals fail it stays valid until it would end; at that moment (a timer
 * at the lease's end, moved with each renewal) the owner must stop writing, since others may take
 * the run for lost, and `onLost` is told.
 */
export class RunLease {
  readonly #options: LeaseOptions;
  readonly #events: LeaseEvents;
  readonly #timer: NodeJS.Timeout;
  #end: NodeJS.Timeout | undefined;
  #until: number;
  #renewing = false;
  #over = false;

  constructor(options: LeaseOptions, events: LeaseEvents) {
    this.#options = options;
    this.#events = events;
    this.#until = options.until;
    this.#timer = setInterval(() => void this.#tick(), Math.max(1, Math.floor(options.leaseMs / 3)));
    this.#timer.unref();
    this.#armEnd();
  }

  /** Whether the lease still runs: the owner may write. */
  valid(): boolean {
    return !this.#over && this.#options.now() < this.#until;
  }

  /**
   * Stops renewing but keeps the lease until it ends (the run is finishing: what it still writes,
   * and tries again, ends with the lease); at its end `onLost` is told, as for a lease run out.
   */
  hold(): void {
    clearInterval(this.#timer);
  }

  /** Stops renewing (the run finished, or is no longer this server's). */
  stop(): void {
    this.#over = true;
    clearInterval(this.#timer);
    clearTimeout(this.#end);
  }

  /** Sets the timer at the lease's end: then, unless renewed meanwhile, the lease is lost. */
  #armEnd(): void {
    clearTimeout(this.#end);
    if (this.#over) return;
    this.#end = setTimeout(
      () => (this.valid() ? this.#armEnd() : this.#lose()),
      Math.max(0, this.#until - this.#options.now()),
    );
    this.#end.unref();
  }

  async #tick(): Promise<void> {
    if (this.#over) return;
    if (!this.valid()) return this.#lose();
    if (this.#renewing) return;
    this.#renewing = true;
    try {
      await this.#renew();
    } catch {
      // A failed renewal is tried again at the next tick, while the lease lasts.
    } finally {
      this.#renewing = false;
    }
  }

  async #renew(): Promise<void> {
    const { runs, accountId, runId, leaseMs, now, lastEventId } = this.#options;
    const until = now() + leaseMs;
    const change = { lease_until: until, last_event_id: lastEventId() };
    const run = await runs.updateRun(accountId, runId, UNFINISHED_RUN_STATUSES, change);
    if (this.#over) return;
    if (!run) return this.#lose();
    this.#until = until;
    this.#armEnd();
    if (run.cancel_requested) this.#events.onCancel();
  }

  #lose(): void {
    if (this.#over) return;
    this.stop();
    this.#events.onLost();
  }
}
