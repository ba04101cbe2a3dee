import { AgentHostError } from '@agenthost/core';
import bytes from 'bytes';
import { type ApiResponse, failure, refusal } from './envelope.js';
import { STATUS_BY_CODE } from './error-codes.js';

export { type HttpErrorCode, STATUS_BY_CODE } from './error-codes.js';

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
    if (status === 500) return { response: refusal('internal', INTERNAL_ERROR_MESSAGE), unexpected: true };
    const headers =
      error.retryAfterSeconds === undefined ? undefined : { 'Retry-After': String(error.retryAfterSeconds) };
    return { response: refusal(error.code, error.message, error.details, headers), unexpected: false };
  }
  if (isHttpLayerError(error)) {
    if (error instanceof URIError || error.message?.startsWith('Failed to decode param')) {
      return {
        response: refusal('malformed_request', 'Malformed URL: its percent-encoding is not valid UTF-8'),
        unexpected: false,
      };
    }
    switch (error.type) {
      case 'entity.parse.failed':
        return {
          response: refusal('invalid_json', 'Malformed JSON in request body: send one JSON object'),
          unexpected: false,
        };
      case 'entity.too.large':
        return {
          response: refusal(
            'payload_too_large',
            `Request body is larger than the limit of ${limitText(error, options.bodyLimit)}`,
          ),
          unexpected: false,
        };
      case 'encoding.unsupported':
      case 'charset.unsupported':
        return {
          response: refusal('unsupported_media_type', 'Unsupported body encoding: send UTF-8 JSON'),
          unexpected: false,
        };
      case 'request.aborted':
      case 'request.size.invalid':
        return { response: refusal('malformed_request', 'The request body was incomplete'), unexpected: false };
    }
    return { response: failure(error.status, 'Bad request'), unexpected: false };
  }
  return { response: refusal('internal', INTERNAL_ERROR_MESSAGE), unexpected: true };
}
