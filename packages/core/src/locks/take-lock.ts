import { AgentHostError } from '../errors/agenthost-error.js';
import { ConflictError } from '../errors/conflict-error.js';
import type { Lease, LockProvider } from '../ports/lock-provider.js';

/** How to take one lock: how long to wait, what to tell a caller who waited too long, and when to stop. */
export interface TakeLockOptions {
  waitMs: number;
  /** The message of the `ConflictError` when the lock stays held past `waitMs`. */
  busy: string;
  signal?: AbortSignal | undefined;
}

/**
 * Takes the lock `key`.
 * @throws ConflictError with the `busy` message after `waitMs`; the signal's reason when it aborts
 *   the wait; whatever else the lock provider threw (a `StorageUnavailableError`, say).
 */
export async function takeLock(locks: LockProvider, key: string, options: TakeLockOptions): Promise<Lease> {
  const { waitMs, busy, signal } = options;
  try {
    return await locks.acquire(key, { waitMs, ...(signal && { signal }) });
  } catch (error) {
    if (signal?.aborted) throw signal.reason ?? error;
    if (AgentHostError.isInstance(error) && error.code === 'conflict')
      throw new ConflictError({ message: busy, cause: error });
    throw error;
  }
}

/** Gives a lease up, if any; a failed release is not the caller's failure. */
export async function releaseLock(lease: Lease | undefined): Promise<void> {
  await lease?.release().catch(() => {
    // The lease expires by itself; a failed release only delays the next run of this session.
  });
}
