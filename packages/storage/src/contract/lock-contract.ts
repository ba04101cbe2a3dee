import assert from 'node:assert/strict';
import { AgentHostError, type LockProvider } from '@agenthost/core';
import type { TestApi } from './storage-contract.js';

/** Options of {@link lockContractTests}. */
export interface LockContractOptions {
  /**
   * True when two providers made by `makeLocks` reach the same backend (two processes on one Redis
   * or Postgres): exclusion is then checked across them too.
   */
  shared?: boolean;
  timeout?: number;
}

let sequence = 0;
const unique = () => `lock-${process.pid}-${Date.now().toString(36)}-${++sequence}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function conflict(promise: Promise<unknown>): Promise<void> {
  const error = await promise.then(
    () => assert.fail('expected a ConflictError'),
    (e: unknown) => e,
  );
  assert.ok(
    AgentHostError.isInstance(error) && error.code === 'conflict',
    `expected a ConflictError, got ${String(error)}`,
  );
}

/** One lock contract case, on two providers (the same one when they do not share a backend). */
type LockCase = (a: LockProvider, b: LockProvider) => Promise<void>;

/** Cases on exclusion and handing over: one holder at a time, a waiter gets the lock on release. */
function exclusionCases(): Record<string, LockCase> {
  return {
    'at most one holder at a time, under contention': async (a, b) => {
      const key = unique();
      let inside = 0;
      let most = 0;
      let done = 0;
      await Promise.all(
        Array.from({ length: 20 }, async (_, i) => {
          const lease = await (i % 2 ? b : a).acquire(key, { waitMs: 20_000 });
          inside++;
          most = Math.max(most, inside);
          await sleep(5);
          const read = done;
          await sleep(1);
          done = read + 1;
          inside--;
          await lease.release();
        }),
      );
      assert.deepStrictEqual({ most, done }, { most: 1, done: 20 });
    },

    'a waiter gets the lock once it is released': async (a, b) => {
      const key = unique();
      const first = await a.acquire(key, { waitMs: 1000 });
      const started = Date.now();
      setTimeout(() => void first.release(), 150);
      const second = await b.acquire(key, { waitMs: 5000 });
      assert.ok(Date.now() - started >= 100, 'the second holder did not wait');
      assert.equal(second.signal.aborted, false);
      await second.release();
    },
  };
}

/** Cases on waits and releases: bounded and abortable waits, repeatable release, independent keys. */
function waitAndReleaseCases(): Record<string, LockCase> {
  return {
    'a wait is bounded: a ConflictError after waitMs': async (a, b) => {
      const key = unique();
      const held = await a.acquire(key, { waitMs: 1000 });
      const started = Date.now();
      await conflict(b.acquire(key, { waitMs: 200 }));
      const waited = Date.now() - started;
      assert.ok(waited >= 150 && waited < 3000, `waited ${waited} ms`);
      await held.release();
    },

    'release is repeatable and never frees a later holder': async (a, b) => {
      const key = unique();
      const first = await a.acquire(key, { waitMs: 1000 });
      await first.release();
      const second = await b.acquire(key, { waitMs: 1000 });
      await first.release();
      await conflict(a.acquire(key, { waitMs: 150 }));
      await second.release();
      await (await a.acquire(key, { waitMs: 1000 })).release();
    },

    'aborting a wait rejects with the reason': async (a, b) => {
      const key = unique();
      const held = await a.acquire(key, { waitMs: 1000 });
      const controller = new AbortController();
      setTimeout(() => controller.abort(new Error('caller gave up')), 50);
      await assert.rejects(b.acquire(key, { waitMs: 5000, signal: controller.signal }), /caller gave up/);
      await held.release();
    },

    'different keys do not block each other': async (a, b) => {
      const one = await a.acquire(unique(), { waitMs: 1000 });
      const two = await b.acquire(unique(), { waitMs: 200 });
      await Promise.all([one.release(), two.release()]);
    },
  };
}

/** Registers cases as tests of the current describe block, each on providers it closes afterwards. */
function registerLockCases(
  api: TestApi,
  makeLocks: () => LockProvider | Promise<LockProvider>,
  options: LockContractOptions,
  cases: Record<string, LockCase>,
): void {
  const timeout = options.timeout ?? 30_000;
  for (const [name, run] of Object.entries(cases)) {
    api.test(
      name,
      async () => {
        const a = await makeLocks();
        const b = options.shared ? await makeLocks() : a;
        try {
          await run(a, b);
        } finally {
          await a.close?.();
          if (b !== a) await b.close?.();
        }
      },
      timeout,
    );
  }
}

/**
 * Registers the lock contract: mutual exclusion under contention, bounded waits, owner-checked and
 * repeatable release, aborting a wait, independent keys. `makeLocks` is called one or more times per
 * case; the suite closes what it made.
 */
export function lockContractTests(
  api: TestApi,
  makeLocks: () => LockProvider | Promise<LockProvider>,
  options: LockContractOptions = {},
): void {
  api.describe('agenthost lock contract', () => {
    registerLockCases(api, makeLocks, options, exclusionCases());
    registerLockCases(api, makeLocks, options, waitAndReleaseCases());
  });
}
