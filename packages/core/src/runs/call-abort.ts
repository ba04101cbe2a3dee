import { neverLost } from '../locks/never-lost.js';

/**
 * What stops one model call: its provider timeout and the signals it follows (the caller's abort, the
 * session's lease, a closed stream). {@link CallAbort.release} clears the timer and removes the
 * listeners once the call is over, so nothing of the call outlives it.
 */
export interface CallAbort {
  /** Aborted at the timeout (with a `TimeoutError`, as `AbortSignal.timeout`'s) or with the first followed signal's reason. */
  readonly signal: AbortSignal;
  /** Whether the provider timeout fired. */
  readonly timedOut: boolean;
  /** Clears the timer and stops following the signals. Safe to call more than once. */
  release(): void;
}

/**
 * One model call's abort. A class rather than an object literal with a `timedOut` getter: V8 keeps an
 * accessor made per call (its closure and accessor pair) alive through young-generation collections,
 * which promoted every call's abort to the old generation and grew the young one (measured in
 * docs/performance.md, "Design choices").
 */
class ModelCallAbort implements CallAbort {
  readonly #controller = new AbortController();
  readonly #timer: ReturnType<typeof setTimeout>;
  readonly #followed: [AbortSignal, () => void][] = [];
  #timedOut = false;

  constructor(timeoutMs: number, follow: readonly (AbortSignal | undefined)[]) {
    this.#timer = setTimeout(() => {
      this.#timedOut = true;
      this.#controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
    }, timeoutMs);
    // Like `AbortSignal.timeout`'s, the timer does not keep the process alive by itself.
    this.#timer.unref?.();
    for (const source of follow) {
      // Listening to a signal that never aborts would only cost its listener (about 1 µs a call).
      if (!source || neverLost(source)) continue;
      if (source.aborted) {
        this.#controller.abort(source.reason);
        break;
      }
      const onAbort = () => this.#controller.abort(source.reason);
      source.addEventListener('abort', onAbort, { once: true });
      this.#followed.push([source, onAbort]);
    }
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  get timedOut(): boolean {
    return this.#timedOut;
  }

  release(): void {
    clearTimeout(this.#timer);
    for (const [source, onAbort] of this.#followed.splice(0)) source.removeEventListener('abort', onAbort);
  }
}

/**
 * Starts the abort of a model call: `signal` aborts after `timeoutMs` or when one of `follow` aborts
 * (already aborted: at once). Call `release()` in a `finally` when the call ends.
 */
export function callAbort(timeoutMs: number, follow: readonly (AbortSignal | undefined)[]): CallAbort {
  return new ModelCallAbort(timeoutMs, follow);
}
