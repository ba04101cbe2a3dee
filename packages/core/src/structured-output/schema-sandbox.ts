import { createHash } from 'node:crypto';
import { availableParallelism } from 'node:os';
import type { Piscina } from 'piscina';
import { AgentHostError } from '../errors/agenthost-error.js';
import { OverloadedError } from '../errors/overloaded-error.js';
import { lazyPackage } from '../lazy-package.js';
import { callAbort } from '../runs/call-abort.js';
import { FairQueue } from './fair-queue.js';
import { invalidFormat } from './json-format.js';

/** Bounds of the {@link SchemaSandbox}. */
export interface SchemaSandboxOptions {
  /** Worker threads that compile and check schemas (default: one less than the cores, 1 to 2). */
  threads?: number;
  /** Heap of each worker thread, in MB; a task that needs more fails alone (default 96). */
  memoryMb?: number;
  /** Longest a schema may take to compile once a worker has started on it, in ms (default 2 000). */
  compileTimeoutMs?: number;
  /** Longest a check of a value may take once started (compiling it first if need be, within `compileTimeoutMs` more), in ms (default 1 000). */
  validateTimeoutMs?: number;
  /** Most tasks of one account waiting or running at once; past it, `rate_limited` (default 32). */
  maxPerAccount?: number;
}

/** What checking a value found: it matches, or a short description of why not. */
export type SchemaCheck = { ok: true } | { ok: false; mismatch: string };

/** The worker pool's package, loaded with a sandbox's pool, which its first task makes (a schema to compile, a pattern). */
const piscina = lazyPackage<typeof import('piscina')>('piscina', {
  url: import.meta.url,
  resolve: import.meta.resolve,
});

type WorkerTask =
  | { kind: 'compile'; account: string; key: string; text: string }
  | { kind: 'validate'; account: string; key: string; text: string; value: unknown }
  | { kind: 'match'; pattern: string; text: string };

type WorkerResult = { ok: true } | { ok: false; refused?: string; mismatch?: string };

const isOutOfMemory = (error: unknown) => (error as { code?: unknown } | null)?.code === 'ERR_WORKER_OUT_OF_MEMORY';

/**
 * Compiles clients' JSON Schemas and checks values against them in worker threads, so that nothing a
 * client sends can hold the request thread: every task has a deadline from when a worker starts it (a
 * worker past it is stopped and replaced), every worker a memory cap, and workers run at a lower
 * priority than the request thread. Patterns run on a linear-time engine (RE2). Each schema gets its
 * own validator, so `$id` and `$ref` resolve only inside it; compiled schemas are cached by account
 * and schema text. Accounts take turns for the workers, so one account's schemas delay another's by
 * at most one task each.
 */
export class SchemaSandbox {
  /** Made by the first task, so that a sandbox nobody uses loads no pool. */
  #pool: Piscina | undefined;
  #closed = false;
  readonly #threads: number;
  readonly #memoryMb: number;
  readonly #queue: FairQueue;
  readonly #compileTimeoutMs: number;
  readonly #validateTimeoutMs: number;

  constructor(options: SchemaSandboxOptions = {}) {
    this.#compileTimeoutMs = options.compileTimeoutMs ?? 2_000;
    this.#validateTimeoutMs = options.validateTimeoutMs ?? 1_000;
    this.#threads = options.threads ?? Math.min(2, Math.max(1, availableParallelism() - 1));
    this.#memoryMb = options.memoryMb ?? 96;
    this.#queue = new FairQueue({ slots: this.#threads, maxPerParty: options.maxPerAccount ?? 32 });
  }

  /** The worker pool, made on first use. */
  #workers(): Piscina {
    if (this.#pool) return this.#pool;
    if (this.#closed) throw new Error('The schema sandbox is closed');
    const memory = this.#memoryMb;
    this.#pool = new (piscina().Piscina)({
      filename: new URL('./schema-worker.mjs', import.meta.url).href,
      minThreads: 0,
      maxThreads: this.#threads,
      idleTimeout: 30_000,
      // Below the request thread in the scheduler's eyes, so that compiling never delays answers.
      niceIncrement: 10,
      resourceLimits: {
        maxOldGenerationSizeMb: memory,
        maxYoungGenerationSizeMb: Math.max(4, Math.round(memory / 8)),
        stackSizeMb: 4,
      },
    });
    // A worker that fails after its task was given up on (stopped at its deadline, then out of
    // memory before it ended) has nobody to tell; the pool replaces it.
    this.#pool.on('error', () => {});
    return this.#pool;
  }

  /**
   * Compiles `text` (a schema's JSON) for `accountId`, so that later checks find it ready.
   * @throws InvalidInputError for a schema that is refused; OverloadedError past the deadline;
   *   RateLimitedError when the account has too many tasks waiting; the signal's reason once aborted.
   */
  async check(accountId: string, text: string, signal?: AbortSignal): Promise<void> {
    await this.#run(
      accountId,
      { kind: 'compile', account: accountKey(accountId), key: cacheKey(accountId, text), text },
      this.#compileTimeoutMs,
      signal,
    );
  }

  /** Checks `value` against the schema `text` of `accountId`; throws as {@link SchemaSandbox.check} does. */
  async validate(accountId: string, text: string, value: unknown, signal?: AbortSignal): Promise<SchemaCheck> {
    const task = {
      kind: 'validate',
      account: accountKey(accountId),
      key: cacheKey(accountId, text),
      text,
      value,
    } as const;
    const result = await this.#run(accountId, task, this.#compileTimeoutMs + this.#validateTimeoutMs, signal);
    return result.ok ? { ok: true } : { ok: false, mismatch: result.mismatch ?? 'does not match' };
  }

  /** Whether `text` matches the pattern, run on the linear-time engine. @throws InvalidInputError for a pattern it cannot run. */
  async matches(accountId: string, pattern: string, text: string, signal?: AbortSignal): Promise<boolean> {
    return (await this.#run(accountId, { kind: 'match', pattern, text }, this.#validateTimeoutMs, signal)).ok;
  }

  /** Stops the worker threads. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#pool?.close({ force: true });
  }

  async #run(
    accountId: string,
    task: WorkerTask,
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ): Promise<WorkerResult> {
    const result = await this.#queue.run(accountId, () => this.#attempt(task, timeoutMs, signal), signal);
    if (!result.ok && result.refused) throw invalidFormat(result.refused);
    return result;
  }

  /** Runs a task on a worker; one that ran out of memory is tried once more on a fresh worker, whose cache is empty. */
  async #attempt(
    task: WorkerTask,
    timeoutMs: number,
    signal: AbortSignal | undefined,
    retried = false,
  ): Promise<WorkerResult> {
    // A slot is free, so the task starts now: its deadline counts only its own work. Its timer is
    // cleared when the task ends (an `AbortSignal.timeout` would live on for the whole timeout).
    const abort = callAbort(timeoutMs, [signal]);
    try {
      return await this.#workers().run(task, { signal: abort.signal });
    } catch (error) {
      // Released before a retry, which sets a deadline of its own; `finally` releases it again (a
      // no-op then), which the successful path needs.
      abort.release();
      if (isOutOfMemory(error) && !retried) return this.#attempt(task, timeoutMs, signal, true);
      if (signal?.aborted) throw signal.reason;
      if (abort.timedOut) {
        throw new OverloadedError({
          message: `json_format could not be checked within ${timeoutMs} ms; retry later, or send a smaller schema`,
          cause: error,
        });
      }
      throw failure(error);
    } finally {
      abort.release();
    }
  }
}

function accountKey(accountId: string): string {
  return createHash('sha256').update(accountId).digest('base64url');
}

function cacheKey(accountId: string, text: string): string {
  return createHash('sha256').update(accountId).update('\0').update(text).digest('base64url');
}

/** What a task that failed in its worker becomes. */
function failure(error: unknown): AgentHostError {
  if (AgentHostError.isInstance(error)) return error;
  if (isOutOfMemory(error)) return invalidFormat('json_format needs more memory to check than this server allows');
  return new AgentHostError({ code: 'internal', message: 'Checking json_format failed', cause: error });
}

let shared: SchemaSandbox | undefined;

/** The process's sandbox, made on first use: worker threads are a process-wide resource. */
export function sharedSchemaSandbox(): SchemaSandbox {
  shared ??= new SchemaSandbox();
  return shared;
}
