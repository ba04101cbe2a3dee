import { createHash, randomBytes } from 'node:crypto';
import {
  AgentHostError,
  ConflictError,
  type IdempotencyRecord,
  type IdempotencyStore,
  inProcessLocks,
  type LockProvider,
  memoryIdempotencyStore,
} from '@agenthost/core';
import { type ApiResponse, refusal } from './envelope.js';
import type { ApiHandler, ApiRequest } from './handlers.js';
import { errorResponse } from './http-errors.js';

/** Options of idempotent requests. */
export interface IdempotencyOptions {
  /** Where records are kept; share it (and `locks`) between servers. Default: this process's memory, at most 10 000 kept responses, 1 000 per account. */
  store?: IdempotencyStore;
  /** Serialises the claim of a key. Default: in-process locks. */
  locks?: LockProvider;
  /** How long a finished request's response is replayed, in ms (default 24 h). */
  ttlMs?: number;
  /**
   * The lease of a claim while its request runs, in ms (default 10 000). The server running the request
   * renews it every third of that; a server that dies stops renewing, so its claim ends within one lease.
   */
  inFlightTtlMs?: number;
}

const KEY = /^[\x21-\x7e]{1,255}$/;
/** What a retry that meets a claim in flight is told to wait, in seconds. */
const IN_FLIGHT_RETRY_AFTER = 2;

/** JSON with object keys sorted, so the same body sent with its keys in another order matches. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Outcomes that are worth retrying, so they are not kept: server errors and transient refusals. */
const transient = (status: number) => status >= 500 || status === 408 || status === 409 || status === 429;

interface Claim {
  scope: string;
  fingerprint: string;
  owner: string;
}

/** The claims of one route: take one, keep it alive, and end it with the response or nothing. */
class Claims {
  readonly #store: IdempotencyStore;
  readonly #locks: LockProvider;
  readonly #ttlMs: number;
  readonly #leaseMs: number;

  constructor(options: IdempotencyOptions) {
    // By default in memory, partitioned by account: one account's keys never push out another's.
    this.#store =
      options.store ?? memoryIdempotencyStore({ partition: (scope) => String((JSON.parse(scope) as unknown[])[0]) });
    this.#locks = options.locks ?? inProcessLocks();
    this.#ttlMs = options.ttlMs ?? 24 * 60 * 60 * 1000;
    this.#leaseMs = options.inFlightTtlMs ?? 10_000;
  }

  /** Claims `claim.scope`, or answers what an earlier request with the key decides. */
  async take(claim: Claim): Promise<ApiResponse | undefined> {
    return this.#locked(claim, async () => {
      const existing = await this.#store.getIdempotency(claim.scope);
      if (existing?.fingerprint !== undefined && existing.fingerprint !== claim.fingerprint) {
        return refusal('idempotency_key_reused', 'This Idempotency-Key was already used with a different request');
      }
      if (existing?.state === 'in_flight') {
        return refusal('conflict', 'A request with this Idempotency-Key is still in progress; retry later', undefined, {
          'Retry-After': String(IN_FLIGHT_RETRY_AFTER),
        });
      }
      if (existing?.response)
        return {
          ...existing.response,
          headers: { ...existing.response.headers, 'Idempotent-Replayed': 'true' },
        } as ApiResponse;
      await this.#store.putIdempotency(claim.scope, this.#inFlight(claim), this.#leaseMs);
      return undefined;
    });
  }

  /** Renews the claim every third of its lease until the returned function is called. */
  keepAlive(claim: Claim): () => void {
    const timer = setInterval(
      () => {
        void this.#ifOwned(claim, () =>
          this.#store.putIdempotency(claim.scope, this.#inFlight(claim), this.#leaseMs),
        ).catch(() => {
          // A missed renewal is retried at the next tick; a claim lost meanwhile is simply not renewed.
        });
      },
      Math.max(1, Math.floor(this.#leaseMs / 3)),
    );
    timer.unref();
    return () => clearInterval(timer);
  }

  /** Ends the claim: keeps a final response for replay, or frees the key so a retry runs again. */
  async end(claim: Claim, response: ApiResponse | undefined): Promise<void> {
    await this.#ifOwned(claim, () => {
      if (!response || transient(response.status)) return this.#store.deleteIdempotency(claim.scope);
      const kept = {
        status: response.status,
        body: response.body,
        ...(response.headers && { headers: response.headers }),
      };
      return this.#store.putIdempotency(
        claim.scope,
        { fingerprint: claim.fingerprint, state: 'done', response: kept, created_at: new Date().toISOString() },
        this.#ttlMs,
      );
    }).catch(() => {
      // The claim lapses by itself within one lease.
    });
  }

  #inFlight({ fingerprint, owner }: Claim): IdempotencyRecord {
    return { fingerprint, state: 'in_flight', owner, created_at: new Date().toISOString() };
  }

  /** Runs `write` under the key's lock if the claim is still this request's (not lapsed and taken by another). */
  async #ifOwned(claim: Claim, write: () => Promise<void>): Promise<void> {
    await this.#locked(claim, async () => {
      const current = await this.#store.getIdempotency(claim.scope);
      if (current?.state === 'in_flight' && current.owner === claim.owner) await write();
    });
  }

  async #locked<T>(claim: Claim, work: () => Promise<T>): Promise<T> {
    const lease = await this.#locks.acquire(`idempotency:${claim.scope}`, { waitMs: 5_000 }).catch((error: unknown) => {
      if (AgentHostError.isInstance(error) && error.code === 'conflict') {
        throw new ConflictError({
          message: 'A request with this Idempotency-Key is being handled; retry later',
          cause: error,
          retryAfterSeconds: IN_FLIGHT_RETRY_AFTER,
        });
      }
      throw error;
    });
    try {
      return await work();
    } finally {
      await lease.release().catch(() => {});
    }
  }
}

function claimOf(route: string, request: ApiRequest, key: string): Claim {
  return {
    scope: JSON.stringify([request.accountId, route, key]),
    fingerprint: createHash('sha256')
      .update(canonical([route, request.params, request.body]))
      .digest('base64url'),
    owner: randomBytes(12).toString('base64url'),
  };
}

/**
 * Makes a handler idempotent under the `Idempotency-Key` header: the first request with a key runs
 * and its response is kept (per account, for `ttlMs`); a retry with the same key and the same request
 * gets that response again (with `Idempotent-Replayed: true`) without running anything; the same key
 * with another request is 422; a retry while the first still runs is 409 with `Retry-After`. The
 * first request's claim is a lease it renews while it runs, so a server that dies mid-request frees
 * the key within one lease. Transient outcomes (5xx, 408, 409, 429) are not kept, so they can be retried.
 */
export function idempotent(
  route: string,
  handler: ApiHandler,
  options: IdempotencyOptions & { bodyLimit: string | number },
): ApiHandler {
  const claims = new Claims(options);
  return async function idempotentHandler(request): Promise<ApiResponse> {
    const key = request.idempotencyKey;
    if (key === undefined) return handler(request);
    if (!KEY.test(key)) {
      return refusal('invalid_input', 'Invalid Idempotency-Key', {
        'Idempotency-Key': {
          message: 'Idempotency-Key must be 1-255 visible ASCII characters',
          path: ['Idempotency-Key'],
        },
      });
    }
    const claim = claimOf(route, request, key);
    const decided = await claims.take(claim);
    if (decided) return decided;
    const stop = claims.keepAlive(claim);
    let response: ApiResponse | undefined;
    try {
      response = await handler(request);
    } catch (error) {
      const { response: failed } = errorResponse(error, options);
      if (transient(failed.status)) throw error;
      response = failed;
    } finally {
      stop();
      await claims.end(claim, response);
    }
    return response;
  };
}
