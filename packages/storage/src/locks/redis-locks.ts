import { hash } from 'node:crypto';
import {
  type AcquireOptions,
  ConflictError,
  inProcessLocks,
  type Lease,
  type LockProvider,
  randomToken,
  StorageUnavailableError,
} from '@agenthost/core';
import { withDeadline } from '../deadline.js';
import { lockFailures } from './lock-failures.js';
import { pollDelay } from './poll-delay.js';

/** The Redis commands the locks use; a node-redis v4/v5 client (`createClient()`) fits. */
export interface RedisLockClient {
  set(key: string, value: string, options: { NX: true; PX: number }): Promise<string | null | unknown>;
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
}

/** Options of {@link redisLocks}. */
export interface RedisLocksOptions {
  /** Lease length in ms; a held lease is renewed every third of it (default 15 000). */
  leaseMs?: number;
  /**
   * Longest pause between attempts while waiting for a lock another process holds, in ms; pauses start
   * at 1 ms and double up to it, jittered (default 25).
   */
  pollMs?: number;
  /** Prefix of the lock keys (default `agenthost:lock:`). */
  prefix?: string;
  /** Bound on each Redis command, in ms (default 2 000). */
  commandTimeoutMs?: number;
  /** Called when a command misses its deadline (for example to replace the connection). */
  onTimeout?: () => void;
}

const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;
const RENEW = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Retries an owner-checked release in the background until it succeeds or the lease has run out anyway. */
function retryRelease(release: () => Promise<unknown>, until: number): void {
  const attempt = () => {
    if (Date.now() >= until) return;
    release().catch(() => setTimeout(attempt, 250).unref());
  };
  setTimeout(attempt, 250).unref();
}

/**
 * A lease whose `validUntil` is read from its holder: a class, so that its getter is its prototype's,
 * not an accessor made for every lease (the pattern V8 was measured to keep alive through
 * young-generation collections in a model call's abort: docs/performance.md, "Design choices").
 */
class HeldLease implements Lease {
  readonly #until: () => number | undefined;
  constructor(
    readonly signal: AbortSignal,
    until: () => number | undefined,
    readonly release: () => Promise<void>,
  ) {
    this.#until = until;
  }

  get validUntil(): number | undefined {
    return this.#until();
  }
}

/** Runs one command on the current client within the command deadline. */
type RunCommand = <T>(work: (c: RedisLockClient) => Promise<T>) => Promise<T>;

/**
 * The lease of a lock taken with `token` at about `sentAt`: renewed every third of `leaseMs`,
 * lost (its signal aborted) when a renewal finds the token gone or the lease runs out by the local
 * clock; releasing it deletes the key if the token still holds it, retrying in the background when
 * Redis cannot be reached.
 */
function holdLease(
  key: string,
  token: string,
  sentAt: number,
  leaseMs: number,
  command: RunCommand,
  release: (key: string, token: string) => Promise<unknown>,
): Lease {
  const lost = new AbortController();
  // Counted from when the request was sent: the lease may have started any time after that.
  let confirmedUntil = sentAt + leaseMs;
  let released = false;
  const renew = setInterval(
    async () => {
      const renewSentAt = Date.now();
      try {
        const ok = await command((c) => c.eval(RENEW, { keys: [key], arguments: [token, String(leaseMs)] }));
        if (Number(ok) === 1) confirmedUntil = renewSentAt + leaseMs;
        else lose(new Error('the lock was taken over after its lease ran out'));
      } catch (error) {
        if (Date.now() >= confirmedUntil) lose(error);
      }
    },
    Math.max(10, Math.floor(leaseMs / 3)),
  );
  renew.unref();
  // Lose the lease by the local clock too, even when renewals hang instead of failing.
  const expiry = setInterval(
    () => {
      if (Date.now() >= confirmedUntil) lose(new Error('the lease ran out before it could be renewed'));
    },
    Math.max(10, Math.floor(leaseMs / 10)),
  );
  expiry.unref();
  const lose = (reason: unknown) => {
    clearInterval(renew);
    clearInterval(expiry);
    if (!released) lost.abort(new StorageUnavailableError({ message: 'Lost a lock', cause: reason }));
  };
  const releaseNow = () => release(key, token);
  return new HeldLease(
    lost.signal,
    () => confirmedUntil,
    async () => {
      if (released) return;
      released = true;
      clearInterval(renew);
      clearInterval(expiry);
      try {
        await releaseNow();
      } catch (error) {
        // Redis is unreachable. The lease would free the lock when it runs out; releasing as soon
        // as Redis is back frees it sooner for the next holder, who is likely already waiting.
        retryRelease(releaseNow, confirmedUntil);
        throw new StorageUnavailableError({
          message: 'Could not release a lock; it frees itself when its lease runs out',
          cause: error,
        });
      }
    },
  );
}

/**
 * A Redis lease that also holds an in-process lock, released after it (once: a second call waits for
 * the first). A lost Redis lease keeps the in-process lock until its holder releases it.
 */
function withLocal(lease: Lease, local: Lease): Lease {
  let released: Promise<void> | undefined;
  const releaseBoth = async () => {
    try {
      await lease.release();
    } finally {
      await local.release();
    }
  };
  return new HeldLease(
    lease.signal,
    () => lease.validUntil,
    () => {
      released ??= releaseBoth();
      return released;
    },
  );
}

/**
 * Locks shared by every process on one Redis: `SET key token NX PX lease`, released only by the
 * holder of the token (a Lua compare-and-delete), renewed while held. A renewal that finds the token
 * gone, or that cannot reach Redis until the lease has run out, aborts `Lease.signal`.
 *
 * An in-process lock comes first: waiters in this process queue for it, and only the first of them
 * asks Redis; waiting for another process's lease polls, after 1 ms at first and up to `pollMs` apart.
 * When Redis fails a lock's command while a waiter queued for the same lock, the waiter fails at once
 * with the same `StorageUnavailableError` rather than waiting out a deadline of its own behind each one
 * before it; waiters for other locks ask Redis themselves.
 */
export function redisLocks(
  client: RedisLockClient | (() => RedisLockClient),
  options: RedisLocksOptions = {},
): LockProvider {
  const leaseMs = options.leaseMs ?? 15_000;
  const pollMs = options.pollMs ?? 25;
  const prefix = options.prefix ?? 'agenthost:lock:';
  const commandTimeoutMs = options.commandTimeoutMs ?? 2_000;
  const current = typeof client === 'function' ? client : () => client;
  const command: RunCommand = (work) => withDeadline(() => work(current()), commandTimeoutMs, options.onTimeout);
  const release = (key: string, token: string) => command((c) => c.eval(RELEASE, { keys: [key], arguments: [token] }));

  const failures = lockFailures();

  async function tryTake(name: string, key: string, token: string): Promise<boolean> {
    try {
      return (await command((c) => c.set(key, token, { NX: true, PX: leaseMs }))) === 'OK';
    } catch (error) {
      // The SET may have landed with its reply lost; the token is ours alone, so releasing it is safe.
      retryRelease(() => release(key, token), Date.now() + leaseMs);
      const failure = new StorageUnavailableError({
        message: 'The lock service is unavailable; retry later',
        cause: error,
      });
      failures.record(name, failure);
      throw failure;
    }
  }

  async function take(name: string, deadline: number, waitMs: number, signal?: AbortSignal): Promise<Lease> {
    const key = prefix + hash('sha256', name, 'base64url');
    const token = randomToken();
    for (let attempt = 0; ; attempt++) {
      signal?.throwIfAborted();
      const sentAt = Date.now();
      if (await tryTake(name, key, token)) return holdLease(key, token, sentAt, leaseMs, command, release);
      const left = deadline - Date.now();
      if (left <= 0) throw new ConflictError({ message: `Gave up waiting ${waitMs} ms for a lock` });
      await sleep(Math.min(left, pollDelay(attempt, pollMs)));
    }
  }

  const local = inProcessLocks();
  return {
    async acquire(name: string, { waitMs, signal }: AcquireOptions): Promise<Lease> {
      const deadline = Date.now() + waitMs;
      const ticket = failures.ticket();
      const inner = await local.acquire(name, { waitMs, ...(signal && { signal }) });
      try {
        failures.atHead(name, ticket);
        return withLocal(await take(name, deadline, waitMs, signal), inner);
      } catch (error) {
        await inner.release();
        throw error;
      }
    },
  };
}
