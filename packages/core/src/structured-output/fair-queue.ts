import { RateLimitedError } from '../errors/rate-limited-error.js';

/** Options of {@link FairQueue}. */
export interface FairQueueOptions {
  /** Jobs that run at once. */
  slots: number;
  /** Most jobs of one party waiting or running at once; past it, `RateLimitedError`. */
  maxPerParty: number;
}

interface Waiter {
  start: () => void;
  abandon: (reason: unknown) => void;
}

/**
 * Admits jobs to a fixed number of slots, taking turns between parties (accounts): when a slot frees,
 * the waiting party that was served longest ago goes, whatever the others have queued. So a party
 * with many jobs waits behind its own, and any other party's job waits for at most one job per party
 * ahead of it.
 */
export class FairQueue {
  readonly #slots: number;
  readonly #maxPerParty: number;
  #running = 0;
  /** Waiting jobs by party. */
  readonly #waiting = new Map<string, Waiter[]>();
  /** When each party holding jobs was last given a slot (a counter). */
  readonly #served = new Map<string, number>();
  #turns = 0;
  readonly #held = new Map<string, number>();

  constructor({ slots, maxPerParty }: FairQueueOptions) {
    this.#slots = slots;
    this.#maxPerParty = maxPerParty;
  }

  /**
   * Runs `job` once a slot is this party's turn. An aborted `signal` takes a job still waiting out
   * of the queue (rejecting with its reason); a job that started runs to its end.
   * @throws RateLimitedError when the party already has `maxPerParty` jobs waiting or running.
   */
  async run<T>(party: string, job: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const held = this.#held.get(party) ?? 0;
    if (held >= this.#maxPerParty)
      throw new RateLimitedError({
        message: 'Too many json_format runs of this account are being checked at once; retry shortly',
      });
    this.#held.set(party, held + 1);
    try {
      await this.#turn(party, signal);
      try {
        return await job();
      } finally {
        this.#running--;
        this.#next();
      }
    } finally {
      const left = (this.#held.get(party) ?? 1) - 1;
      if (left > 0) this.#held.set(party, left);
      else {
        this.#held.delete(party);
        this.#served.delete(party);
      }
    }
  }

  #turn(party: string, signal: AbortSignal | undefined): Promise<void> {
    signal?.throwIfAborted();
    if (this.#running < this.#slots && this.#waiting.size === 0) {
      this.#running++;
      this.#served.set(party, ++this.#turns);
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => waiter.abandon(signal?.reason);
      const waiter: Waiter = {
        start: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        abandon: (reason) => {
          const queue = this.#waiting.get(party);
          const at = queue?.indexOf(waiter) ?? -1;
          if (at < 0) return;
          queue!.splice(at, 1);
          if (queue!.length === 0) this.#waiting.delete(party);
          reject(reason);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const queue = this.#waiting.get(party);
      if (queue) queue.push(waiter);
      else this.#waiting.set(party, [waiter]);
    });
  }

  #next(): void {
    if (this.#waiting.size === 0 || this.#running >= this.#slots) return;
    let party: string | undefined;
    for (const waiting of this.#waiting.keys()) {
      if (party === undefined || (this.#served.get(waiting) ?? 0) < (this.#served.get(party) ?? 0)) party = waiting;
    }
    const queue = this.#waiting.get(party!)!;
    const waiter = queue.shift()!;
    if (queue.length === 0) this.#waiting.delete(party!);
    this.#running++;
    this.#served.set(party!, ++this.#turns);
    waiter.start();
  }
}
