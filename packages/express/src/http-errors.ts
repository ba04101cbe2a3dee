import { AgentHostError, type ErrorCode } from '@agenthost/core';
import bytes from 'bytes';
import { type ApiResponse, failure } from './envelope.js';

/** The one table from core error codes to HTTP statuses. */
export const STATUS_BY_CODE: Readonly<Record<ErrorCode, number>> = Object.freeze({
  invalid_input: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  rate_limited: 429,
  overloaded: 503,
  storage_unavailable: 503,
  provider_error: 502,
  provider_rate_limited: 503,
  provider_timeout: 504,
  internal: 500,
});

/** The message every unexpected error gets; the detail goes only to the server log. */
export const INTERNAL_ERROR_MESSAGE = 'Internal server error';

/** An error from Express's own layers (body parser, router), which carry an HTTP status. */
interface HttpLayerError {
  type?: string;
  status: number;
  message?: string;
  /** For a body over the limit: the limit of the parser that refused it, in bytes. */
  limit?: number;
}

/** The limit a body went over, as configured here, or the limit of the (host's) parser that refused it. */
function limitText(error: HttpLayerError, bodyLimit: string | number): string {
  const ours = typeof bodyLimit === 'number' ? bodyLimit : bytes.parse(bodyLimit);
  return typeof error.limit === 'number' && error.limit !== ours
    ? (bytes.format(error.limit) ?? `${error.limit} bytes`)
    : String(bodyLimit);
}

function isHttpLayerError(error: unknown): error is HttpLayerError {
  const status = (error as HttpLayerError | null)?.status;
  return typeof error === 'object' && error !== null && typeof status === 'number' && status >= 400 && status < 500;
}

/**
 * Turns anything thrown while handling a request into an error response. `unexpected` marks errors
 * that are not agenthost's own (a bug, or a failure nothing anticipated): they answer a generic 500.
 * Every response of status 500 or more is to be logged with its cause; a client's mistake is not.
 */
export function errorResponse(
  error: unknown,
  options: { bodyLimit: string | number },
): { response: ApiResponse; unexpected: boolean } {
  if (AgentHostError.isInstance(error)) {
    const status = STATUS_BY_CODE[error.code] ?? 500;
    if (status === 500) return { response: failure(500, INTERNAL_ERROR_MESSAGE), unexpected: true };
    const headers =
      error.retryAfterSeconds === undefined ? undefined : { 'Retry-After': String(error.retryAfterSeconds) };
    return { response: failure(status, error.message, error.details, headers), unexpected: false };
  }
  if (isHttpLayerError(error)) {
    if (error instanceof URIError || error.message?.startsWith('Failed to decode param')) {
      return { response: failure(400, 'Malformed URL: its percent-encoding is not valid UTF-8'), unexpected: false };
    }
    switch (error.type) {
      case 'entity.parse.failed':
        return { response: failure(400, 'Malformed JSON in request body: send one JSON object'), unexpected: false };
      case 'entity.too.large':
        return {
          response: failure(413, `Request body is larger than the limit of ${limitText(error, options.bodyLimit)}`),
          unexpected: false,
        };
      case 'encoding.unsupported':
      case 'charset.unsupported':
        return { response: failure(415, 'Unsupported body encoding: send UTF-8 JSON'), unexpected: false };
      case 'request.aborted':
      case 'request.size.invalid':
        return { response: failure(400, 'The request body was incomplete'), unexpected: false };
    }
    return { response: failure(error.status, 'Bad request'), unexpected: false };
  }
  return { response: failure(500, INTERNAL_ERROR_MESSAGE), unexpected: true };
}
