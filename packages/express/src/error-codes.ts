import type { ErrorCode } from '@agenthost/core';

/**
 * The refusals the HTTP adapter makes itself, before or around the service: a method a path does
 * not take, a body that is not JSON or too large, a malformed request, Node's own refusals.
 */
export type AdapterErrorCode =
  | 'method_not_allowed'
  | 'unsupported_media_type'
  | 'payload_too_large'
  | 'invalid_json'
  | 'malformed_request'
  | 'idempotency_key_reused'
  | 'request_timeout'
  | 'headers_too_large'
  | 'expectation_failed'
  | 'not_ready';

/**
 * Every machine code an error envelope may carry: core's transport-neutral codes and the adapter's
 * own. Clients tell apart two answers of one status by it (a 503 of `storage_unavailable` from one of
 * `provider_rate_limited`).
 */
export type HttpErrorCode = ErrorCode | AdapterErrorCode;

/**
 * The one table from error codes to HTTP statuses. Adding a code to core's `ErrorCode` makes the
 * compiler demand its row here. Where codes share a status, the first listed is the one a bare
 * status stands for (see {@link codeForStatus}).
 */
export const STATUS_BY_CODE: Readonly<Record<HttpErrorCode, number>> = Object.freeze({
  malformed_request: 400,
  invalid_input: 400,
  invalid_json: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  cancelled: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  expectation_failed: 417,
  idempotency_key_reused: 422,
  rate_limited: 429,
  headers_too_large: 431,
  internal: 500,
  provider_error: 502,
  overloaded: 503,
  storage_unavailable: 503,
  provider_rate_limited: 503,
  not_ready: 503,
  server_lost: 503,
  provider_timeout: 504,
});

/** Every code, in the table's order (the OpenAPI document's error schema lists them). */
export const ERROR_CODES = Object.freeze(Object.keys(STATUS_BY_CODE) as HttpErrorCode[]);

/**
 * The code an answer of `status` carries when only its status is known (`failure(status, ...)`): the
 * first code of that status in {@link STATUS_BY_CODE}; `internal` for another 5xx, `malformed_request`
 * for another 4xx.
 */
export function codeForStatus(status: number): HttpErrorCode {
  const found = ERROR_CODES.find((code) => STATUS_BY_CODE[code] === status);
  return found ?? (status >= 500 ? 'internal' : 'malformed_request');
}
