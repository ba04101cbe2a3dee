import { createHash } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { AgentHostError } from '../errors/agenthost-error.js';
import { InvalidInputError } from '../errors/invalid-input-error.js';
import { OverloadedError } from '../errors/overloaded-error.js';
import { RateLimitedError } from '../errors/rate-limited-error.js';

/** Bounds of the {@link SchemaSandbox}. */
export interface SchemaSandboxOptions {
  /** Worker threads that compile and check schemas (default: one less than the cores, 1 to 2). */
  threads?: number;
  /** Heap of each worker thread, in MB; a task that needs more fails alone (default 96). */
  memoryMb?: number;
  /** Longest wait for a schema to compile, queueing included, in ms (default 2 000). */
  compileTimeoutMs?: number;
  /** Longest wait for a value to be checked against a schema, queueing included, in ms (default 1 000). */
  validateTimeoutMs?: number;
  /** Most tasks of one account waiting or running at once; past it, `rate_limited` (default 32). */
  maxPerAccount?: number;
}

/** What checking a value found: it matches, or a short description of why not. */
export type SchemaCheck = { ok: true } | { ok: false; mismatch: string };

type WorkerTask =
  | { kind: 'compile'; key: string; text: string }
  | { kind: 'validate'; key: string; text: string; value: unknown }
  | { kind: 'match'; pattern: string; text: string };

type WorkerResult = { ok: true } | { ok: false; refused?: string; mismatch?: string };

const invalid = (message: string) => new InvalidInputError({ details: { json_format: { message, path: ['json_format'] } } });

/**
 * Compiles clients' JSON Schemas and checks values against them in worker threads, so that nothing a
 * client sends can hold the main thread: every task has a deadline (a worker past it is stopped and
 * replaced) and every worker a memory cap. Patterns run on a linear-time engine (RE2). Each schema
 * gets its own validator, so `$id` and `$ref` resolve only inside it; compiled schemas are cached per
 * account and schema text, so one account can neither reach nor observe another's. An account's
 * tasks run one at a time, so one account cannot take every worker.
 */
export class SchemaSandbox {
  readonly #pool: Piscina;
  readonly #compileTimeoutMs: number;
  readonly #validateTimeoutMs: number;
  readonly #maxPerAccount: number;
  readonly #queues = new Map<string, { tail: Promise<unknown>; size: number }>();

  constructor(options: SchemaSandboxOptions = {}) {
    this.#compileTimeoutMs = options.compileTimeoutMs ?? 2_000;
    this.#validateTimeoutMs = options.validateTimeoutMs ?? 1_000;
    this.#maxPerAccount = options.maxPerAccount ?? 32;
    const memory = options.memoryMb ?? 96;
    this.#pool = new Piscina({
      filename: new URL('./schema-worker.mjs', import.meta.url).href,
      minThreads: 0,
      maxThreads: options.threads ?? Math.min(2, Math.max(1, availableParallelism() - 1)),
      idleTimeout: 30_000,
      // Below the request thread in the scheduler's eyes, so that compiling never delays answers.
      niceIncrement: 10,
      resourceLimits: { maxOldGenerationSizeMb: memory, maxYoungGenerationSizeMb: Math.max(4, Math.round(memory / 8)), stackSizeMb: 4 },
    });
  }

  /**
   * Compiles `text` (a schema's JSON) for `accountId`, so that later checks find it ready.
   * @throws InvalidInputError for a schema that is refused; OverloadedError past the deadline;
   *   RateLimitedError when the account has too many tasks waiting.
   */
  async check(accountId: string, text: string): Promise<void> {
    await this.#serially(accountId, () => this.#run({ kind: 'compile', key: cacheKey(accountId, text), text }, this.#compileTimeoutMs));
  }

  /** Checks `value` against the schema `text` of `accountId`; throws as {@link SchemaSandbox.check} does. */
  async validate(accountId: string, text: string, value: unknown): Promise<SchemaCheck> {
    const result = await this.#serially(accountId, () =>
      this.#run({ kind: 'validate', key: cacheKey(accountId, text), text, value }, this.#compileTimeoutMs + this.#validateTimeoutMs),
    );
    return result.ok ? { ok: true } : { ok: false, mismatch: result.mismatch ?? 'does not match' };
  }

  /** Whether `text` matches the pattern, run on the linear-time engine. @throws InvalidInputError for a pattern it cannot run. */
  async matches(pattern: string, text: string): Promise<boolean> {
    return (await this.#run({ kind: 'match', pattern, text }, this.#validateTimeoutMs)).ok;
  }

  /** Stops the worker threads. */
  async close(): Promise<void> {
    await this.#pool.close({ force: true });
  }

  async #serially<T>(accountId: string, job: () => Promise<T>): Promise<T> {
    const queue = this.#queues.get(accountId) ?? { tail: Promise.resolve(), size: 0 };
    if (queue.size >= this.#maxPerAccount) {
      throw new RateLimitedError({ message: 'Too many json_format runs of this account are being checked at once; retry shortly' });
    }
    queue.size++;
    this.#queues.set(accountId, queue);
    const result = queue.tail.then(job);
    queue.tail = result.catch(() => undefined);
    try {
      return await result;
    } finally {
      if (--queue.size === 0) this.#queues.delete(accountId);
    }
  }

  async #run(task: WorkerTask, timeoutMs: number): Promise<WorkerResult> {
    let result: WorkerResult;
    try {
      result = await this.#pool.run(task, { signal: AbortSignal.timeout(timeoutMs) });
    } catch (error) {
      throw failure(error, timeoutMs);
    }
    if (!result.ok && result.refused) throw invalid(result.refused);
    return result;
  }
}

function cacheKey(accountId: string, text: string): string {
  return createHash('sha256').update(accountId).update('\0').update(text).digest('base64url');
}

/** What a task that did not finish becomes. */
function failure(error: unknown, timeoutMs: number): AgentHostError {
  if (AgentHostError.isInstance(error)) return error;
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ERR_WORKER_OUT_OF_MEMORY') return invalid('json_format needs more memory to check than this server allows');
  if ((error as Error | null)?.name === 'AbortError') {
    return new OverloadedError({ message: `json_format could not be checked within ${timeoutMs} ms; retry, or send a smaller schema`, cause: error });
  }
  return new AgentHostError({ code: 'internal', message: 'Checking json_format failed', cause: error });
}

let shared: SchemaSandbox | undefined;

/** The process's sandbox, made on first use: worker threads are a process-wide resource. */
export function sharedSchemaSandbox(): SchemaSandbox {
  shared ??= new SchemaSandbox();
  return shared;
}
