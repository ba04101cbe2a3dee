/**
 * The last failure of each lock's command, for the waiters that queued for the lock before it: such a
 * waiter fails with the same error once its turn comes, instead of spending a command's deadline of its
 * own to learn what the one before it learnt. Waiters and failures are ordered by tickets from one
 * counter, not by the clock, so a waiter that came after a failure never takes it for its own.
 */
export interface LockFailures {
  /** A waiter starts waiting: its ticket orders it against the failures of its lock. */
  ticket(): number;
  /** A command of lock `name` failed with `error`. */
  record(name: string, error: Error): void;
  /**
   * The waiter of `ticket` has reached the head of lock `name`'s queue: throws the lock's failure if it
   * came after the waiter started waiting. A failure before it concerns no one any more (waiters are
   * served in order, and only the head of the queue sends the lock's commands), so it is forgotten.
   */
  atHead(name: string, ticket: number): void;
  /** How many failures are kept. */
  readonly size: number;
}

/** The most failures kept; past it the oldest is dropped (its waiters then ask Redis themselves). */
export const MAX_KEPT_FAILURES = 1024;

/** Failures by lock name, at most {@link MAX_KEPT_FAILURES}, oldest first. */
export function lockFailures(): LockFailures {
  const failures = new Map<string, { ticket: number; error: Error }>();
  let tickets = 0;
  return {
    ticket: () => ++tickets,
    record(name, error) {
      // Deleted first, so the map's order stays the order of the failures, oldest first.
      failures.delete(name);
      if (failures.size >= MAX_KEPT_FAILURES) failures.delete(failures.keys().next().value as string);
      failures.set(name, { ticket: ++tickets, error });
    },
    atHead(name, ticket) {
      const failure = failures.get(name);
      if (!failure) return;
      if (failure.ticket > ticket) throw failure.error;
      failures.delete(name);
    },
    get size() {
      return failures.size;
    },
  };
}
