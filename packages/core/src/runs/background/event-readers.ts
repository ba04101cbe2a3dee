import { RateLimitedError } from '../../errors/rate-limited-error.js';

/**
 * The readings of run events open on one service: how many each account has (at most `max`), and
 * a way to end them all when the service closes.
 */
export class EventReaders {
  readonly #max: number;
  readonly #counts = new Map<string, number>();
  readonly #open = new Set<AbortController>();

  constructor(max: number) {
    this.#max = max;
  }

  /**
   * Opens a reading for the account: `read` gets a signal that aborts when `signal` does or the
   * service closes. The reading counts until its iteration ends (run to its end, returned early,
   * or failed), or until that signal aborts when its iteration has not started; so a caller that
   * does not iterate it, and whose signal does not abort, must call `return()` on its iterator.
   * @throws RateLimitedError (nothing opened) when the account has `max` readings open here.
   */
  async open<T>(
    accountId: string,
    signal: AbortSignal | undefined,
    read: (signal: AbortSignal) => Promise<AsyncIterable<T>>,
  ): Promise<AsyncIterable<T>> {
    const count = this.#counts.get(accountId) ?? 0;
    if (count >= this.#max)
      throw new RateLimitedError({
        message: `The account has ${this.#max} run event streams open on this server, the most it may have; close one or retry later`,
      });
    this.#counts.set(accountId, count + 1);
    const controller = new AbortController();
    this.#open.add(controller);
    const reading = signal ? AbortSignal.any([signal, controller.signal]) : controller.signal;
    let released = false;
    let started = false;
    // An abort before the iteration starts releases the reading: nothing else would.
    const unstarted = () => started || release();
    const release = () => {
      if (released) return;
      released = true;
      reading.removeEventListener('abort', unstarted);
      this.#open.delete(controller);
      const left = (this.#counts.get(accountId) ?? 1) - 1;
      if (left > 0) this.#counts.set(accountId, left);
      else this.#counts.delete(accountId);
    };
    try {
      const events = counted(await read(reading), release, () => {
        started = true;
      });
      if (reading.aborted) unstarted();
      else reading.addEventListener('abort', unstarted, { once: true });
      return events;
    } catch (error) {
      release();
      throw error;
    }
  }

  /** Ends every reading open now: each iteration ends after the event it is at. */
  close(): void {
    for (const controller of this.#open) controller.abort();
  }
}

/**
 * `events`, calling `start` when its iteration starts and `release` when it ends: run to its end,
 * returned, or failed.
 */
function counted<T>(events: AsyncIterable<T>, release: () => void, start: () => void): AsyncIterable<T> {
  return {
    [Symbol.asyncIterator](): AsyncIterator<T> {
      start();
      const iterator = events[Symbol.asyncIterator]();
      return {
        async next() {
          try {
            const next = await iterator.next();
            if (next.done) release();
            return next;
          } catch (error) {
            release();
            throw error;
          }
        },
        async return(value?: unknown) {
          release();
          return (await iterator.return?.(value)) ?? { done: true, value: undefined };
        },
      };
    },
  };
}
