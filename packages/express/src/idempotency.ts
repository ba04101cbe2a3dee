import { createHash } from 'node:crypto';
import { inProcessLocks, type IdempotencyRecord, type IdempotencyStore, type LockProvider } from '@agenthost/core';
import { failure, type ApiResponse } from './envelope.js';
import type { ApiHandler } from './handlers.js';
import { errorResponse } from './http-errors.js';

/** Options of idempotent requests. */
export interface IdempotencyOptions {
  /** Where records are kept; share it (and `locks`) between servers. Default: this process's memory. */
  store?: IdempotencyStore;
  /** Serialises the claim of a key. Default: in-process locks. */
  locks?: LockProvider;
  /** How long a finished request's response is replayed, in ms (default 24 h). */
  ttlMs?: number;
  /** How long a claim of a request still running lasts, in ms, should its server die (default 10 min). */
  inFlightTtlMs?: number;
}

/** An idempotency store in this process's memory. */
export function memoryIdempotency(): IdempotencyStore {
  const records = new Map<string, { record: IdempotencyRecord; expires: number }>();
  return {
    async getIdempotency(key) {
      const entry = records.get(key);
      if (entry && entry.expires <= Date.now()) records.delete(key);
      return entry && entry.expires > Date.now() ? structuredClone(entry.record) : undefined;
    },
    async putIdempotency(key, record, ttlMs) {
      records.set(key, { record: structuredClone(record), expires: Date.now() + ttlMs });
    },
    async deleteIdempotency(key) {
      records.delete(key);
    },
  };
}

const KEY = /^[\x21-\x7e]{1,255}$/;

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

/**
 * Makes a handler idempotent under the `Idempotency-Key` header: the first request with a key runs
 * and its response is kept (per account, for `ttlMs`); a retry with the same key and the same request
 * gets that response again (with `Idempotent-Replayed: true`) without running anything; the same key
 * with another request is 422; a retry while the first still runs is 409. Transient outcomes (5xx,
 * 408, 409, 429) are not kept, so they can be retried.
 */
export function idempotent(route: string, handler: ApiHandler, options: IdempotencyOptions & { bodyLimit: string | number }): ApiHandler {
  const store = options.store ?? memoryIdempotency();
  const locks = options.locks ?? inProcessLocks();
  const ttlMs = options.ttlMs ?? 24 * 60 * 60 * 1000;
  const inFlightTtlMs = options.inFlightTtlMs ?? 10 * 60 * 1000;
  return async function idempotentHandler(request): Promise<ApiResponse> {
    const key = request.idempotencyKey;
    if (key === undefined) return handler(request);
    if (!KEY.test(key)) {
      return failure(400, 'Invalid Idempotency-Key', { 'Idempotency-Key': { message: 'Idempotency-Key must be 1-255 visible ASCII characters', path: ['Idempotency-Key'] } });
    }
    const scope = JSON.stringify([request.accountId, route, key]);
    const fingerprint = createHash('sha256').update(canonical([route, request.params, request.body])).digest('base64url');
    const lease = await locks.acquire(`idempotency:${scope}`, { waitMs: 5_000 });
    try {
      const existing = await store.getIdempotency(scope);
      if (existing?.fingerprint !== undefined && existing.fingerprint !== fingerprint) {
        return failure(422, 'This Idempotency-Key was already used with a different request');
      }
      if (existing?.state === 'in_flight') return failure(409, 'A request with this Idempotency-Key is still in progress; retry later');
      if (existing?.response) return { ...existing.response, headers: { ...existing.response.headers, 'Idempotent-Replayed': 'true' } } as ApiResponse;
      await store.putIdempotency(scope, { fingerprint, state: 'in_flight', created_at: new Date().toISOString() }, inFlightTtlMs);
    } finally {
      await lease.release().catch(() => {});
    }
    let response: ApiResponse;
    try {
      response = await handler(request);
    } catch (error) {
      const { response: failed } = errorResponse(error, options);
      if (transient(failed.status)) {
        await store.deleteIdempotency(scope).catch(() => {});
        throw error;
      }
      response = failed;
    }
    if (transient(response.status)) await store.deleteIdempotency(scope).catch(() => {});
    else await store.putIdempotency(scope, { fingerprint, state: 'done', response: { status: response.status, body: response.body, ...(response.headers && { headers: response.headers }) }, created_at: new Date().toISOString() }, ttlMs);
    return response;
  };
}
