/**
 * How long a waiter for a lock held in another process pauses before its `attempt`-th retry (0 for
 * the first): 1 ms, doubling up to `pollMs`, each jittered to between half and one and a half of it.
 * Locks are mostly held for a few round trips, so a waiter polls often at first and a held-up one
 * settles at `pollMs`; the jitter keeps waiters from retrying in step.
 */
export function pollDelay(attempt: number, pollMs: number): number {
  const base = Math.min(pollMs, 2 ** Math.min(attempt, 30));
  return base / 2 + Math.random() * base;
}
