import { ConflictError } from '../errors/conflict-error.js';
import type { AcquireOptions, Lease, LockProvider } from '../ports/lock-provider.js';
import { NEVER_LOST } from './never-lost.js';

/**
 * Locks within this process: first come, first served per key. Correct only when a single process
 * uses the store; servers that share a store need a shared lock provider (Redis or Postgres, in
 * `@agenthost/storage`).
 */
export function inProcessLocks(): LockProvider {
  // A key is held while it has an entry; the entry queues the waiters in arrival order.
  const queues = new Map<string, (() => void)[]>();

  function lease(key: string): Lease {
    let released = false;
    return {
      signal: NEVER_LOST,
      release: async () => {
        if (released) return;
        released = true;
        const next = queues.get(key)?.shift();
        if (next) next();
        else queues.delete(key);
      },
    };
  }

  return {
    acquire(key: string, { waitMs, signal }: AcquireOptions): Promise<Lease> {
      signal?.throwIfAborted();
      const queue = queues.get(key);
      if (!queue) {
        queues.set(key, []);
        return Promise.resolve(lease(key));
      }
      return new Promise<Lease>((resolve, reject) => {
        const leave = () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          const i = queue.indexOf(grant);
          if (i >= 0) queue.splice(i, 1);
        };
        const grant = () => {
          leave();
          resolve(lease(key));
        };
        const onAbort = () => {
          leave();
          reject(signal?.reason);
        };
        const timer = setTimeout(() => {
          leave();
          reject(new ConflictError({ message: `Gave up waiting ${waitMs} ms for a lock` }));
        }, waitMs);
        signal?.addEventListener('abort', onAbort, { once: true });
        queue.push(grant);
      });
    },
  };
}
