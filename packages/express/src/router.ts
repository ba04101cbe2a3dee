import type { AgentService } from '@agenthost/core';
import express, { type ErrorRequestHandler } from 'express';
import type { KeyResolver } from './auth.js';
import { authenticate } from './authenticate.js';
import { bodyParsing } from './body-parsing.js';
import { chainMiddleware } from './chain.js';
import { endpoints } from './endpoints.js';
import { type ErrorLogger, errorHandler, errorsBefore, serverErrorLog, stderrLogger } from './error-handler.js';
import type { IdempotencyOptions } from './idempotency.js';
import type { AgentMetrics } from './metrics.js';
import { perKeyLimiter, type RateLimitOptions } from './rate-limits.js';
import { requestContext } from './request-context.js';
import { registerRoutes, routeNotFound } from './route-registration.js';
import { ROUTES } from './routes.js';
import { tracing } from './tracing-middleware.js';
import { yieldToLoop } from './yield-to-loop.js';

export { MAX_JSON_DEPTH } from './body-parsing.js';
export type { ErrorLogger } from './error-handler.js';
export { requestDetails } from './request-state.js';

/** The router of the API, and the error handler that goes right after it when the host parses bodies itself. */
export type AgentRouter = express.Router & {
  /**
   * Answers with envelopes the errors that the host's own middleware raises for requests to the API
   * before the router runs, such as a host-wide `express.json()` refusing malformed JSON (400) or a
   * body over its limit (413); a missing or wrong key is answered 401 first. Mount it right after the
   * router: `app.use(['/api/v1', '/api'], router, router.errorHandler)`. Not needed when the router is
   * mounted before any body parser (then it parses bodies itself, after checking the key).
   */
  errorHandler: ErrorRequestHandler;
};

/** Options of {@link createAgentRouter}. */
export interface AgentRouterOptions {
  /** Turns an `x-api-key` value into an account, or `null`. See `staticKeys`. Required. */
  resolveKey: KeyResolver;
  /** Largest accepted JSON body, in bytes or as `'1mb'`-style text (default `'1mb'`). */
  bodyLimit?: string | number;
  /** Receives unexpected errors with the request id (default: one JSON line on stderr). */
  logger?: ErrorLogger;
  /**
   * Values that must never reach the error log: configured API keys, provider keys, tokens. They are
   * redacted wherever they appear, on top of whatever looks like a secret (see `redactSecrets`).
   */
  redact?: readonly string[];
  /**
   * Where `Idempotency-Key` records live and how their claim is locked; give the store's and the
   * lock provider of servers that share a store. Default: this process's memory.
   */
  idempotency?: IdempotencyOptions;
  /** Rate limits per API key and on failed authentication per client address. Off unless given. */
  rateLimit?: RateLimitOptions;
  /** Records request and error metrics (see `createMetrics`). Off unless given. */
  metrics?: AgentMetrics;
  /**
   * OpenTelemetry: a server span for each request (named by route template, with status and request
   * id), the active context while the request is handled, so the service's run spans nest under it.
   * Spans go to the application's tracer provider. Off unless true.
   */
  tracing?: boolean;
  /** Lets request logs (`requestDetails`) include a run's input and output. Off unless true. */
  logContent?: boolean;
}

function checked(service: AgentService, options: AgentRouterOptions): void {
  if (!service || typeof service.runAgent !== 'function')
    throw new TypeError('createAgentRouter: an AgentService is required');
  if (typeof options?.resolveKey !== 'function')
    throw new TypeError('createAgentRouter: options.resolveKey is required (see staticKeys)');
}

/**
 * The agenthost HTTP API as an Express 5 router. Mount it where the API should live; the contract
 * serves it under both `/api/v1` and `/api`:
 *
 * @example
 * const app = express();
 * app.use(['/api/v1', '/api'], createAgentRouter(service, { resolveKey: staticKeys([{ account: 'acme', key }]) }));
 *
 * Every request needs a valid `x-api-key`; every answer, errors and unknown routes under the mount
 * point included, is a JSON envelope. Unexpected errors answer a generic 500 and are logged once with
 * the request id, which is also sent back in `x-request-id`. The routes are the route table's
 * (`routes.ts`); the middlewares run in this order: metrics, a turn of the event loop (`yieldToLoop`),
 * request context, the public route, tracing, the key check, the per-key rate limit, body parsing, the
 * API's routes, 404, errors.
 *
 * @throws TypeError at creation when `service` or `resolveKey` is missing.
 */
export function createAgentRouter(service: AgentService, options: AgentRouterOptions): AgentRouter {
  checked(service, options);
  const bodyLimit = options.bodyLimit ?? '1mb';
  // Copied: a caller's later changes to its array must not change what is redacted.
  const logServerError = serverErrorLog(options.logger ?? stderrLogger, [...(options.redact ?? [])]);
  const routes = endpoints(service, ROUTES, { ...options, bodyLimit, logServerError });
  const keyCheck = authenticate(options.resolveKey, options.rateLimit);
  const limitPerKey = perKeyLimiter(options.rateLimit ?? {});
  const onError = errorHandler({ bodyLimit, logServerError, ...(options.metrics && { metrics: options.metrics }) });

  const router = express.Router({ caseSensitive: true, strict: false });
  // Each run of middlewares is one layer of Express's router (chainMiddleware): same order, less cost.
  router.use(chainMiddleware([...(options.metrics ? [options.metrics.requests] : []), yieldToLoop, requestContext]));
  registerRoutes(
    router,
    ROUTES.filter((route) => route.scope === null),
    routes,
  );
  router.use(
    chainMiddleware([
      ...(options.tracing ? [tracing] : []),
      keyCheck,
      ...(limitPerKey ? [limitPerKey] : []),
      ...bodyParsing(bodyLimit),
    ]),
  );
  registerRoutes(
    router,
    ROUTES.filter((route) => route.scope !== null),
    routes,
  );
  router.use(routeNotFound);
  router.use(onError);
  return Object.assign(router, { errorHandler: errorsBefore(keyCheck, onError) });
}
