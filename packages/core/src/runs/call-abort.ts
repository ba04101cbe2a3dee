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
 * Starts the abort of a model call: `signal` aborts after `timeoutMs` or when one of `follow` aborts
 * (already aborted: at once). Call `release()` in a `finally` when the call ends.
 */
export function callAbort(timeoutMs: number, follow: readonly (AbortSignal | undefined)[]): CallAbort {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
  }, timeoutMs);
  // Like `AbortSignal.timeout`'s, the timer does not keep the process alive by itself.
  timer.unref?.();
  const followed: [AbortSignal, () => void][] = [];
  for (const source of follow) {
    // Listening to a signal that never aborts would only cost its listener (about 1 µs a call).
    if (!source || neverLost(source)) continue;
    if (source.aborted) {
      controller.abort(source.reason);
      break;
    }
    const onAbort = () => controller.abort(source.reason);
    source.addEventListener('abort', onAbort, { once: true });
    followed.push([source, onAbort]);
  }
  return {
    signal: controller.signal,
    get timedOut() {
      return timedOut;
    },
    release() {
      clearTimeout(timer);
      for (const [source, onAbort] of followed.splice(0)) source.removeEventListener('abort', onAbort);
    },
  };
}
