/**
 * The last failure of each lock's command, kept while a waiter that queued for the lock before it may
 * still be waiting: such a waiter fails with the same error once its turn comes, instead of spending a
 * command's deadline of its own to learn what the one before it learnt.
 */
export interface LockFailures {
  /** A waiter starts waiting up to `waitMs`: failures are kept at least that long from now on. */
  waiting(waitMs: number): void;
  /** A command of lock `name` failed with `error`. */
  record(name: string, error: Error): void;
  /** Throws the failure of lock `name` recorded at or after `since`, if any. */
  throwIfSince(name: string, since: number): void;
  /** How many failures are kept. */
  readonly size: number;
}

/** Past this many failures kept, recording one first drops those no waiter can still be behind. */
const SWEEP_ABOVE = 1024;

/**
 * Failures by lock name. A waiter reaches the head of its queue within its wait, so a failure older
 * than the longest wait asked for can concern no waiter still queued: such failures are dropped when
 * more than {@link SWEEP_ABOVE} are kept, which bounds the map without a timer per failure.
 */
export function lockFailures(now: () => number = Date.now): LockFailures {
  const failures = new Map<string, { at: number; error: Error }>();
  let longestWaitMs = 0;
  const sweep = () => {
    const before = now() - longestWaitMs;
    for (const [name, failure] of failures) {
      if (failure.at >= before) return;
      failures.delete(name);
    }
  };
  return {
    waiting(waitMs) {
      if (waitMs > longestWaitMs) longestWaitMs = waitMs;
    },
    record(name, error) {
      if (failures.size >= SWEEP_ABOVE) sweep();
      // Deleted first, so the map's order stays the order of the failures, oldest first.
      failures.delete(name);
      failures.set(name, { at: now(), error });
    },
    throwIfSince(name, since) {
      const failure = failures.get(name);
      if (failure && failure.at >= since) throw failure.error;
    },
    get size() {
      return failures.size;
    },
  };
}
