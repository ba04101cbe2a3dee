import type { ApiKeyScope } from '@agenthost/core';
import type { z } from 'zod';

/** The methods routes are declared with; every `get` answers `HEAD` too. */
export type RouteMethod = 'get' | 'post' | 'patch' | 'put' | 'delete';

/** What answers a route: one of `createHandlers`' operations, or the API's own description. */
export type RouteHandlerName =
  | 'createAgent'
  | 'listAgents'
  | 'getAgent'
  | 'updateAgent'
  | 'deleteAgent'
  | 'listAgentVersions'
  | 'getAgentVersion'
  | 'restoreAgentVersion'
  | 'runAgent'
  | 'chatAgent'
  | 'respondToApproval'
  | 'listSessions'
  | 'getSession'
  | 'deleteSession'
  | 'listRuns'
  | 'getRun'
  | 'runEvents'
  | 'cancelRun'
  | 'listModels'
  | 'listTools'
  | 'openApiDocument';

/** An OpenAPI parameter: the name of one of the document's `components.parameters`, or the parameter itself. */
export type RouteParameter = string | Record<string, unknown>;

/** One operation of the HTTP API, declared once: the router, its scope checks and 405s, and the OpenAPI document all read it. */
export interface RouteDefinition {
  method: RouteMethod;
  /** The path under the mount point, as an OpenAPI template (`/agents/{agentId}`). */
  path: string;
  operationId: string;
  /** The scope a key needs; `null` for the one public route, answered before authentication. */
  scope: ApiKeyScope | null;
  handler: RouteHandlerName;
  /** Kept under `Idempotency-Key` under this name (the name is part of the stored claim: never change it). */
  idempotency?: 'create' | 'run' | 'chat' | 'approval';
  /**
   * Answers with server-sent events: `events`, the run's own (when the body's `stream` is true or the
   * client accepts only them); `ui-messages`, the AI SDK's UI message stream (for its chat requests);
   * `run-events`, a background run's events, always (the route has no JSON success answer).
   */
  streams?: 'events' | 'ui-messages' | 'run-events';
  /** The request body's schema (named in `requestComponents`). */
  request?: z.ZodType;
  /** A request body that works as sent against a server offering the `echo` model: the reference page's default. */
  example?: Readonly<Record<string, unknown>>;
  /** The success answer's schema (named in `responseComponents`); none for the document itself and event streams. */
  response?: z.ZodType;
  /** The 202 answer's schema, for a route that may start a background run (named in `responseComponents`). */
  accepted?: z.ZodType;
  /** Every status the operation may answer, successes and errors. */
  statuses: readonly number[];
  tag: 'Agents' | 'Runs' | 'Sessions' | 'Discovery' | 'Meta';
  summary: string;
  description?: string;
  /** What the success answer is, for the document. */
  answers: string;
  /** Operation parameters besides the path's own and the common ones. */
  parameters?: readonly RouteParameter[];
  /** Headers of the success answer besides `x-request-id`, by name of the document's `components.headers`. */
  headers?: Readonly<Record<string, string>>;
}

/** What every operation behind the key check may answer; a body, on any method, is checked too. */
const GUARDED = [200, 400, 401, 403, 413, 415, 429, 500, 503];

/** The statuses of an operation behind the key check: those of {@link GUARDED} and `more`, in order. */
export const guarded = (...more: number[]) => [...new Set([...GUARDED, ...more])].sort((a, b) => a - b);

/** The `limit` query parameter of a paged operation. */
export const limit = (defaultValue: number, description = `Page size, 1 to 100 (default ${defaultValue})`) => ({
  name: 'limit',
  in: 'query',
  required: false,
  description,
  schema: { type: 'integer', minimum: 1, maximum: 100, default: defaultValue },
});
