import { AgentHostError, StorageUnavailableError } from '@agenthost/core';

/**
 * Runs `work` with a deadline: past `ms` it rejects with a `StorageUnavailableError` and calls
 * `onTimeout` (for example to drop a connection that stopped answering). The work itself may still
 * finish later; its result is then ignored. The deadline's timer is cleared as soon as `work` settles.
 */
export async function withDeadline<T>(work: () => Promise<T>, ms: number, onTimeout?: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      // Rejected first: `onTimeout` may fail the work at once (a dropped connection), which must not win the race.
      reject(new StorageUnavailableError({ message: `Storage did not answer within ${ms} ms` }));
      onTimeout?.();
    }, ms);
  });
  try {
    return await Promise.race([work(), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A store's call to its database: {@link withDeadline}, and any failure that is not already one of
 * agenthost's errors becomes a `StorageUnavailableError` (its `cause` the driver's error).
 */
export async function storageCall<T>(work: () => Promise<T>, ms: number, onTimeout?: () => void): Promise<T> {
  try {
    return await withDeadline(work, ms, onTimeout);
  } catch (error) {
    if (AgentHostError.isInstance(error)) throw error;
    throw new StorageUnavailableError({ cause: error });
  }
}
