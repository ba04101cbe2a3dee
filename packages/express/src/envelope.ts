import type { FieldIssues } from '@agenthost/core';
import { codeForStatus, type HttpErrorCode, STATUS_BY_CODE } from './error-codes.js';

/** A successful response body. */
export interface SuccessEnvelope<T = unknown> {
  success: true;
  data: T;
  status: number;
}

/**
 * An error response body; `status` always equals the HTTP status. `error` is for people, `code` for
 * programs: it stays the same when the wording changes.
 */
export interface ErrorEnvelope {
  success: false;
  error: string;
  code: HttpErrorCode;
  details?: FieldIssues;
  status: number;
}

/** What a request log may say about an answer, as its handler knows it; never sent to the client. */
export interface RequestLog {
  /** The agent the request created, read, changed or ran. */
  agent_id?: string;
  /** For a run: the session it was stored in. */
  session_id?: string;
  /** For a run: its model, tool and token usage. */
  run?: {
    model: string;
    tool_used: string | null;
    tools_used: string[];
    tokens: { prompt: number; completion: number; total: number };
  };
  /** For a run: its input and output, which a log shows only when told to (`logContent`). */
  input?: string;
  output?: string;
}

/** A response as the framework-neutral handlers return it. */
export interface ApiResponse {
  status: number;
  body: SuccessEnvelope | ErrorEnvelope;
  headers?: Record<string, string>;
  /** What the request log needs to know of it (see `requestDetails`); not part of the answer. */
  log?: RequestLog;
}

/** Builds a success response. */
export function success<T>(data: T, status = 200): ApiResponse {
  return { status, body: { success: true, data, status } };
}

/**
 * Builds an error response of `code`, its status taken from the code-to-status table; `details` only
 * when there are some.
 */
export function refusal(
  code: HttpErrorCode,
  error: string,
  details?: FieldIssues,
  headers?: Record<string, string>,
): ApiResponse {
  return envelopeOf(STATUS_BY_CODE[code], code, error, details, headers);
}

/**
 * Builds an error response of `status`; its `code` is the one that status stands for (see
 * `codeForStatus`). A status no code stands for (a 416 from a static file, say) is answered as its
 * class's generic code and status (400 `malformed_request`, 500 `internal`), so `code` and `status`
 * always agree. Prefer {@link refusal}, which names the code.
 */
export function failure(
  status: number,
  error: string,
  details?: FieldIssues,
  headers?: Record<string, string>,
): ApiResponse {
  const code = codeForStatus(status);
  return envelopeOf(STATUS_BY_CODE[code], code, error, details, headers);
}

function envelopeOf(
  status: number,
  code: HttpErrorCode,
  error: string,
  details: FieldIssues | undefined,
  headers: Record<string, string> | undefined,
): ApiResponse {
  const body: ErrorEnvelope =
    details && Object.keys(details).length > 0
      ? { success: false, error, code, details, status }
      : { success: false, error, code, status };
  return headers ? { status, body, headers } : { status, body };
}

/** The JSON text of a body: compact, or indented by two spaces when `pretty`. */
export function serialize(body: ApiResponse['body'], pretty: boolean): string {
  return pretty ? JSON.stringify(body, null, 2) : JSON.stringify(body);
}
