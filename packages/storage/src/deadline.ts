import { StorageUnavailableError } from '@agenthost/core';

/**
 * Runs `work` with a deadline: past `ms` it rejects with a `StorageUnavailableError` and calls
 * `onTimeout` (for example to drop a connection that stopped answering). The work itself may still
 * finish later; its result is then ignored.
 */
export async function withDeadline<T>(work: () => Promise<T>, ms: number, onTimeout?: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onTimeout?.();
      reject(new StorageUnavailableError({ message: `Storage did not answer within ${ms} ms` }));
    }, ms);
  });
  try {
    return await Promise.race([work(), deadline]);
  } finally {
    clearTimeout(timer);
  }
}
