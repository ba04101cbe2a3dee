import {
  type AgentMetrics,
  chainMiddleware,
  createAgentRouter,
  createHealthRouter,
  type ErrorLogger,
  HEALTH_PATHS,
  metricsHandler,
  type RateLimitOptions,
  refusal,
  serialize,
} from '@agenthost/express';
import cors from 'cors';
import express from 'express';
import { RedisStore } from 'rate-limit-redis';
import type { ServerConfig } from './config.js';
import type { HostResources } from './host-resources.js';
import type { InFlight } from './in-flight.js';

/** The headers a browser may send and read when CORS lets its origin in. */
const CORS_HEADERS = {
  allowedHeaders: ['content-type', 'x-api-key', 'idempotency-key', 'x-request-id', 'x-session-id'],
  exposedHeaders: [
    'x-request-id',
    'x-next-cursor',
    'link',
    'retry-after',
    'ratelimit',
    'ratelimit-policy',
    'idempotent-replayed',
  ],
};

const METRICS_PATH = '/metrics';
/** Every path {@link operationalRoutes} serves: a route added there without its path here is never reached under the API. */
const OPERATIONAL_PATHS = new Set([...HEALTH_PATHS, METRICS_PATH]);

/** Whether a path is an operational route's as Express matches one: in any case, with or without one trailing `/`. */
function isOperationalPath(path: string): boolean {
  const bare = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  return OPERATIONAL_PATHS.has(bare.toLowerCase());
}

/**
 * The operational routes, entered only by their own paths (every method, so that their router still
 * answers `OPTIONS`): the API's requests go on without walking their router and its routes.
 */
function operationalPathsOnly(operational: express.Router): express.RequestHandler {
  return function agentHostOperational(req, res, next) {
    if (isOperationalPath(req.path)) operational(req, res, next);
    else next();
  };
}

/** Liveness, readiness and (when on) metrics: the routes a host serves outside its API keys. */
export function operationalRoutes(
  config: ServerConfig,
  resources: HostResources,
  draining: () => boolean,
): express.Router {
  const router = express.Router();
  const { store, metrics } = resources;
  router.use(createHealthRouter({ checks: { storage: () => store.store.ping?.() ?? Promise.resolve() }, draining }));
  if (metrics)
    router.get(METRICS_PATH, metricsHandler(metrics, config.metricsToken ? { token: config.metricsToken } : {}));
  return router;
}

/**
 * Once the host has closed (its store too), the API answers 503 `not_ready` and closes the connection,
 * rather than failing each request on a closed store. While it drains, requests are still served, as
 * a load balancer may send some before it sees readiness fail.
 */
function refuseWhenClosed(closed: () => boolean): express.RequestHandler {
  return function agentHostClosed(_req, res, next) {
    if (!closed()) {
      next();
      return;
    }
    const response = refusal('not_ready', 'Not ready: this server has shut down', undefined, {
      'Retry-After': '5',
      Connection: 'close',
    });
    res
      .status(response.status)
      .set(response.headers)
      .type('application/json; charset=utf-8')
      .send(serialize(response.body, false));
  };
}

/** Rate limits per key and per failing client address; on Redis the counters are shared by every server. */
function rateLimitFor(config: ServerConfig, resources: HostResources): RateLimitOptions {
  const { store, secret } = resources;
  return {
    keySecret: secret,
    ...(config.rateLimitPerMinute > 0 && { perKey: { limit: config.rateLimitPerMinute, windowMs: 60_000 } }),
    ...(config.authFailureLimit > 0 && { failedAuth: { limit: config.authFailureLimit, windowMs: 15 * 60_000 } }),
    ...(store.redisCommand && {
      store: (limiter: 'key' | 'auth') =>
        new RedisStore({
          sendCommand: (...args: string[]) => store.redisCommand!(args) as never,
          prefix: `${config.storeNamespace}:ratelimit:${limiter}:`,
        }),
    }),
  };
}

/** What the host's routers are made of. */
export interface HostRouterParts {
  config: ServerConfig;
  resources: HostResources;
  inFlight: InFlight;
  operational: express.Router;
  closed: () => boolean;
  logger: ErrorLogger;
  secrets: readonly string[];
  metrics: AgentMetrics | undefined;
}

/** CORS (when origins are configured), the operational routes, the refusal once closed, then the API. */
function withApi(
  router: express.Router,
  parts: HostRouterParts,
  api: ReturnType<typeof createAgentRouter>,
): express.Router {
  const { config } = parts;
  // CORS is off unless origins are configured: then only those origins' browsers may call the API.
  const corsFor = config.corsOrigins.length
    ? [cors({ origin: config.corsOrigins.includes('*') ? '*' : config.corsOrigins, ...CORS_HEADERS, maxAge: 600 })]
    : [];
  router.use(chainMiddleware([...corsFor, operationalPathsOnly(parts.operational), refuseWhenClosed(parts.closed)]));
  // The error handler answers the refusals of an app's own body parser with envelopes too.
  router.use(api, api.errorHandler);
  return router;
}

/**
 * The host's routers, over one API (so one set of rate-limit counters, idempotency claims and
 * metrics): `router`, the whole API with its keys, rate limits, idempotency, metrics and tracing, plus
 * `/healthz`, `/readyz` and `/metrics`, counted for a graceful shutdown, which works mounted in an app
 * that parses JSON bodies itself; and `untracked`, the same without the count, for the standalone app,
 * which counts every request once before its own routes.
 */
export function createHostRouters(parts: HostRouterParts): { router: express.Router; untracked: express.Router } {
  const { config, resources } = parts;
  const api = createAgentRouter(resources.service, {
    resolveKey: resources.resolveKey,
    bodyLimit: config.bodyLimit,
    rateLimit: rateLimitFor(config, resources),
    ...(parts.metrics && { metrics: parts.metrics }),
    ...(config.tracing && { tracing: true }),
    ...(config.logContent && { logContent: true }),
    logger: parts.logger,
    redact: parts.secrets,
    // Kept in the store, claimed under the shared locks: a retry that reaches another server is answered the same.
    idempotency: { store: resources.store.store, locks: resources.store.locks },
  });
  const router = express.Router();
  router.use(parts.inFlight.track);
  return { router: withApi(router, parts, api), untracked: withApi(express.Router(), parts, api) };
}
