/** A held lock. */
export interface Lease {
  /**
   * Aborted when the lease is lost before `release()` (for example a shared lock whose renewal
   * failed): the holder must stop and not write, since another holder may now have the lock.
   */
  readonly signal: AbortSignal;
  /**
   * For leases that expire: until when (epoch ms, by this process's clock, counted from when the
   * request that took or renewed the lease was sent) the lease is surely still held. A holder about to
   * make a write that must not land after the lease is gone checks that this time is farther away
   * than the write can take. `undefined` for leases that do not expire while their holder lives.
   */
  readonly validUntil?: number;
  /** Gives the lock up. Safe to call more than once; never releases a lock someone else holds. */
  release(): Promise<void>;
}

/** Options of one {@link LockProvider.acquire}. */
export interface AcquireOptions {
  /** How long to wait for the lock, in ms, before rejecting with a `ConflictError`. */
  waitMs: number;
  /** Stops waiting (rejects with the signal's reason). */
  signal?: AbortSignal;
}

/**
 * The lock port: mutual exclusion by key, within one process or across all processes that share the
 * provider's backend.
 *
 * A provider must guarantee:
 * - **Mutual exclusion**: at most one unreleased, unlost lease per key at any time, across every
 *   process using the same backend.
 * - **Bounded wait**: `acquire` resolves with a lease or rejects with a `ConflictError` within about
 *   `waitMs` (or a `StorageUnavailableError` when the backend cannot be reached).
 * - **Liveness**: a holder that dies without releasing does not block others forever (a lease
 *   expires, or dies with its connection), and a live holder keeps its lease for as long as it
 *   holds it (renewal), or is told through `Lease.signal` that it lost it.
 * - **Owner-checked release**: releasing never frees a lock that another holder took since.
 */
export interface LockProvider {
  acquire(key: string, options: AcquireOptions): Promise<Lease>;
  /** Releases resources (connections, timers). Optional. */
  close?(): Promise<void>;
}
