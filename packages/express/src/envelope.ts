import type { FieldIssues } from '@agenthost/core';

/** A successful response body. */
export interface SuccessEnvelope<T = unknown> {
  success: true;
  data: T;
  status: number;
}

/** An error response body; `status` always equals the HTTP status. */
export interface ErrorEnvelope {
  success: false;
  error: string;
  details?: FieldIssues;
  status: number;
}

/** A response as the framework-neutral handlers return it. */
export interface ApiResponse {
  status: number;
  body: SuccessEnvelope | ErrorEnvelope;
  headers?: Record<string, string>;
}

/** Builds a success response. */
export function success<T>(data: T, status = 200): ApiResponse {
  return { status, body: { success: true, data, status } };
}

/** Builds an error response; `details` only when there are some. */
export function failure(
  status: number,
  error: string,
  details?: FieldIssues,
  headers?: Record<string, string>,
): ApiResponse {
  const body: ErrorEnvelope =
    details && Object.keys(details).length > 0
      ? { success: false, error, details, status }
      : { success: false, error, status };
  return headers ? { status, body, headers } : { status, body };
}

/** The JSON text of a body: compact, or indented by two spaces when `pretty`. */
export function serialize(body: ApiResponse['body'], pretty: boolean): string {
  return pretty ? JSON.stringify(body, null, 2) : JSON.stringify(body);
}
