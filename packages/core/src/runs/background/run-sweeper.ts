import type { RunStore } from '../../ports/run-store.js';
import { markLost } from './lost-runs.js';

/** What a sweeper reads: the store, the clock and the limits. */
export interface SweeperOptions {
  runs: RunStore;
  now: () => Date;
  leaseMs: number;
  eventRetentionMs: number;
  recordRetentionMs: number;
  /** Where in the list of lost runs a sweep starts (default `Math.random`). */
  random?: () => number;
}

/** How many lost runs one sweep ends at most; the next sweep takes the rest. */
const SWEEP_BATCH = 100;
/** How many lost runs a sweep ends at once. */
const SWEEP_PARALLEL = 8;

/**
 * Ends the runs of lost servers and drops what is past its retention: every half lease, it marks
 * each unfinished run whose lease ran out more than a third of a lease ago `failed` (`server_lost`),
 * then purges the store. The third of a lease is a grace for clocks that differ between servers: the
 * owner stops writing at its lease's end by its own clock, so a run is taken for lost only when even
 * a clock that far behind says the owner stopped. After a large crash it ends up to a hundred runs
 * a sweep, eight at a time, from a random place in the list. Its timer does not keep the process
 * alive. A failed sweep is tried again at the next.
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
    const { runs, now, leaseMs, random = Math.random } = this.#options;
    const at = now().getTime();
    const leaseBefore = at - Math.floor(leaseMs / 3);
    const found = await runs.expiredRuns(leaseBefore, SWEEP_BATCH);
    // From a random place in the list: servers that sweep at once mostly start on different runs.
    const start = Math.floor(random() * found.length);
    const queue = [...found.slice(start), ...found.slice(0, start)];
    const endEach = async () => {
      for (let run = queue.shift(); run; run = queue.shift())
        await markLost(runs, run, { ...this.#options, now: at, leaseBefore }).catch(() => false);
    };
    await Promise.all(Array.from({ length: Math.min(SWEEP_PARALLEL, queue.length) }, endEach));
    await runs.purge(at);
  }
}
