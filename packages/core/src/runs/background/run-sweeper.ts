import type { RunStore } from '../../ports/run-store.js';
import { markLost } from './lost-runs.js';

/** What a sweeper reads: the store, the clock and the limits. */
export interface SweeperOptions {
  runs: RunStore;
  now: () => Date;
  leaseMs: number;
  eventRetentionMs: number;
  recordRetentionMs: number;
}

/** How many lost runs one sweep ends at most; the next sweep takes the rest. */
const SWEEP_BATCH = 100;

/**
 * Ends the runs of lost servers and drops what is past its retention: every half lease, it marks
 * each unfinished run whose lease ran out more than a third of a lease ago `failed` (`server_lost`),
 * then purges the store. The third of a lease is a grace for clocks that differ between servers: the
 * owner stops writing at its lease's end by its own clock, so a run is taken for lost only when even
 * a clock that far behind says the owner stopped. Its timer does not keep the process alive. A failed
 * sweep is tried again at the next.
 */
export class RunSweeper {
  readonly #options: SweeperOptions;
  #timer: NodeJS.Timeout | undefined;
  #sweeping: Promise<void> | undefined;

  constructor(options: SweeperOptions) {
    this.#options = options;
  }

  /** Starts sweeping (again starting it does nothing). */
  start(): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => void this.sweep(), Math.max(1, Math.floor(this.#options.leaseMs / 2)));
    this.#timer.unref();
  }

  /** Stops sweeping, and waits for a sweep in progress. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#sweeping;
  }

  /** One sweep (none while one is in progress); never rejects. */
  async sweep(): Promise<void> {
    this.#sweeping ??= this.#sweep()
      .catch(() => undefined)
      .finally(() => {
        this.#sweeping = undefined;
      });
    return this.#sweeping;
  }

  async #sweep(): Promise<void> {
    const { runs, now, leaseMs } = this.#options;
    const at = now().getTime();
    const leaseBefore = at - Math.floor(leaseMs / 3);
    for (const run of await runs.expiredRuns(leaseBefore, SWEEP_BATCH)) {
      await markLost(runs, run, { ...this.#options, now: at, leaseBefore }).catch(() => false);
    }
    await runs.purge(at);
  }
}
