import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AgentService, ApiKeyService } from '@agenthost/core';
import {
  type AgentMetrics,
  answerClientErrors,
  anyKey,
  createAgentRouter,
  createHealthRouter,
  createMetrics,
  type ErrorLogger,
  failure,
  type HealthOptions,
  type IdempotencyOptions,
  type KeyResolver,
  managedKeys,
  metricsHandler,
  type RateLimitOptions,
  serialize,
  staticKeys,
} from '@agenthost/express';
import { loadDeploymentSecret, type OpenedStore, openStore } from '@agenthost/storage';
import { builtinTools, combineTools, type McpToolProvider, mcpTools } from '@agenthost/tools';
import { OpenTelemetry } from '@ai-sdk/otel';
import cors from 'cors';
import express from 'express';
import { RedisStore } from 'rate-limit-redis';
import type { KeyEntry, ServerConfig } from './config.js';
import { storageErrorLog } from './logging.js';
import { modelsFor } from './models.js';
import { mountReferencePage } from './reference-page.js';
import { configuredSecrets } from './secrets.js';

/** A running standalone server. */
export interface RunningServer {
  /** Base URL of the API, e.g. `http://127.0.0.1:3000/api/v1`. */
  url: string;
  server: Server;
  service: AgentService;
  /** The development key made because no keys were configured or issued, else `undefined`. */
  devKey: KeyEntry | undefined;
  /** Issues, lists and revokes the keys kept in the store. */
  keys: ApiKeyService;
  /** How many managed keys the store held at start. */
  managedKeyCount: number;
  /** The model names offered. */
  models: readonly string[];
  /** The store, as opened from `AGENTHOST_STORE`. */
  store: OpenedStore;
  /** The tool integration names offered. */
  tools: readonly string[];
  /**
   * Shuts down: readiness fails at once, the listener closes (new connections are refused), requests
   * in flight get until the deadline (`AGENTHOST_SHUTDOWN_TIMEOUT_MS` by default) to finish; the rest
   * are cut off, which aborts their runs (nothing of them is stored). Then the store and MCP servers
   * close. Resolves with how many requests had to be cut off.
   */
  close(deadlineMs?: number): Promise<{ aborted: number }>;
}

/** Builds the Express app of the standalone server; exported for tests and for embedding. */
export function createApp(
  service: AgentService,
  resolveKey: KeyResolver,
  options: {
    bodyLimit: string;
    logger?: ErrorLogger;
    /** Secrets the error log must never hold (see `configuredSecrets`). */
    redact?: readonly string[];
    /** Logs one line per request (see `requestLogger`). */
    requestLog?: express.RequestHandler;
    /** Trace requests with OpenTelemetry (the application registers the tracer provider). */
    tracing?: boolean;
    /** Let request logs include run inputs and outputs. */
    logContent?: boolean;
    /** Metrics to record and serve at `/metrics`, optionally behind a token. */
    metrics?: { metrics: AgentMetrics; token?: string };
    health?: HealthOptions;
    idempotency?: IdempotencyOptions;
    rateLimit?: RateLimitOptions;
    trustProxy?: boolean | number | string;
    corsOrigins?: string[];
  },
): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', options.trustProxy ?? false);
  if (options.requestLog) app.use(options.requestLog);
  // Liveness and readiness, outside the API and its keys.
  if (options.health) app.use(createHealthRouter(options.health));
  if (options.metrics)
    app.get(
      '/metrics',
      metricsHandler(options.metrics.metrics, options.metrics.token ? { token: options.metrics.token } : {}),
    );
  // CORS is off unless origins are configured: then only those origins' browsers may call the API.
  if (options.corsOrigins?.length) {
    app.use(
      cors({
        origin: options.corsOrigins.includes('*') ? '*' : options.corsOrigins,
        allowedHeaders: ['content-type', 'x-api-key', 'idempotency-key', 'x-request-id'],
        exposedHeaders: [
          'x-request-id',
          'x-next-cursor',
          'link',
          'retry-after',
          'ratelimit',
          'ratelimit-policy',
          'idempotent-replayed',
        ],
        maxAge: 600,
      }),
    );
  }
  const router = createAgentRouter(service, {
    resolveKey,
    bodyLimit: options.bodyLimit,
    ...(options.rateLimit && { rateLimit: options.rateLimit }),
    ...(options.metrics && { metrics: options.metrics.metrics }),
    ...(options.tracing && { tracing: true }),
    ...(options.logContent && { logContent: true }),
    ...(options.logger && { logger: options.logger }),
    ...(options.redact && { redact: options.redact }),
    ...(options.idempotency && { idempotency: options.idempotency }),
  });
  app.use(['/api/v1', '/api'], router);
  // The interactive API reference, over the document the router serves.
  mountReferencePage(app, '/api/v1/openapi.json');
  app.use(function notFound(req, res) {
    res
      .status(404)
      .type('application/json; charset=utf-8')
      .send(serialize(failure(404, `Route not found: ${req.method} ${req.path}`).body, req.query?.pretty === 'true'));
  });
  app.use(function lastResort(
    error: unknown,
    _req: express.Request,
    res: express.Response,
    _next: express.NextFunction,
  ) {
    const status =
      typeof (error as { status?: unknown })?.status === 'number' && (error as { status: number }).status < 500
        ? (error as { status: number }).status
        : 500;
    res
      .status(status)
      .type('application/json; charset=utf-8')
      .send(serialize(failure(status, status === 500 ? 'Internal server error' : 'Bad request').body, false));
  });
  return app;
}

/**
 * Answers an HTTP/1.1 request without a Host header with a 400 envelope. Node's own check
 * (`requireHostHeader`, on by default) answers before any listener with an empty body, so the server
 * turns it off and checks here instead.
 */
function hostRequired(req: express.Request, res: express.Response, next: express.NextFunction): void {
  if (req.httpVersion !== '1.1' || req.headers.host !== undefined) {
    next();
    return;
  }
  const body = serialize(failure(400, 'Bad request: an HTTP/1.1 request needs a Host header').body, false);
  res
    .writeHead(400, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(body),
      'Cache-Control': 'no-store',
      Connection: 'close',
    })
    .end(body);
}

/**
 * The deployment secret (configured, else the one kept in the store, made there on first start), the
 * managed keys hashed under it, and how many of those are not revoked.
 */
async function openKeys(
  config: ServerConfig,
  store: OpenedStore,
): Promise<{ secret: string; keys: ApiKeyService; managedKeyCount: number }> {
  const secret = config.secret ?? (await loadDeploymentSecret(store.store));
  const keys = new ApiKeyService({ store: store.store, secret });
  const managedKeyCount = (await keys.listKeys()).filter((k) => !k.revoked_at).length;
  return { secret, keys, managedKeyCount };
}

/** Starts the standalone server and resolves once it is listening. */
export async function startServer(
  config: ServerConfig,
  options: { logger?: ErrorLogger; requestLog?: express.RequestHandler } = {},
): Promise<RunningServer> {
  // Every secret of the configuration, and the development key once it is made: no log may hold one.
  const secrets = configuredSecrets(config);
  const store = await openStore(config.store, {
    namespace: config.storeNamespace,
    unsafeInProcessLocksOnly: config.unsafeDisableLocks,
    ...(options.logger && { onError: storageErrorLog(options.logger, secrets) }),
  });
  const models = modelsFor(config.providers);
  // Node loads its fetch implementation on first use (tens of milliseconds on one thread): now, not
  // during the first request that calls a model.
  new Headers();
  let mcp: McpToolProvider | undefined;
  try {
    mcp = Object.keys(config.mcpServers).length ? await mcpTools(config.mcpServers) : undefined;
  } catch (error) {
    await store.close().catch(() => {});
    throw error;
  }
  const tools = combineTools(
    builtinTools({ tavilyApiKey: config.tavilyApiKey, tavilyBaseURL: config.tavilyBaseURL }),
    ...(mcp ? [mcp] : []),
  );
  const { limits } = config;
  const metrics = config.metrics ? createMetrics() : undefined;
  const service = new AgentService({
    ...(metrics && { onRunFinished: (observation) => metrics.observeRun(observation) }),
    ...(config.tracing && {
      telemetry: { enabled: true, recordContent: config.traceContent, integrations: [new OpenTelemetry()] },
    }),
    store: store.store,
    models,
    tools,
    locks: store.locks,
    runWaitMs: config.runWaitMs,
    maxInputChars: limits.maxInputChars,
    maxOutputTokens: limits.maxOutputTokens,
    maxToolSteps: limits.maxToolSteps,
    providerTimeoutMs: limits.providerTimeoutMs,
    maxRetries: limits.providerRetries,
  });
  let opened: Awaited<ReturnType<typeof openKeys>>;
  try {
    opened = await openKeys(config, store);
  } catch (error) {
    await Promise.all([store.close().catch(() => {}), mcp?.close().catch(() => {})]);
    throw error;
  }
  const { keys, managedKeyCount, secret } = opened;
  // A development key only when nobody has any other way in.
  const devKey =
    config.apiKeys || managedKeyCount > 0
      ? undefined
      : { account: 'default', key: `ah_dev_${randomBytes(24).toString('base64url')}` };
  if (devKey) secrets.push(devKey.key);
  const configured = config.apiKeys ?? (devKey ? [devKey] : []);
  const resolveKey = configured.length ? anyKey(staticKeys(configured), managedKeys(keys)) : managedKeys(keys);
  let draining = false;
  const app = createApp(service, resolveKey, {
    bodyLimit: config.bodyLimit,
    health: { checks: { storage: () => store.store.ping?.() ?? Promise.resolve() }, draining: () => draining },
    ...(options.requestLog && { requestLog: options.requestLog }),
    ...(metrics && { metrics: { metrics, ...(config.metricsToken && { token: config.metricsToken }) } }),
    tracing: config.tracing,
    logContent: config.logContent,
    // Kept in the store, claimed under the shared locks: a retry that reaches another server is answered the same.
    idempotency: { store: store.store, locks: store.locks },
    trustProxy: config.trustProxy,
    corsOrigins: config.corsOrigins,
    rateLimit: {
      keySecret: secret,
      ...(config.rateLimitPerMinute > 0 && { perKey: { limit: config.rateLimitPerMinute, windowMs: 60_000 } }),
      ...(config.authFailureLimit > 0 && { failedAuth: { limit: config.authFailureLimit, windowMs: 15 * 60_000 } }),
      // On Redis the counters are shared, so a key's limit holds across every server.
      ...(store.redisCommand && {
        store: (limiter: 'key' | 'auth') =>
          new RedisStore({
            sendCommand: (...args: string[]) => store.redisCommand!(args) as never,
            prefix: `${config.storeNamespace}:ratelimit:${limiter}:`,
          }),
      }),
    },
    ...(options.logger && { logger: options.logger }),
    redact: secrets,
  });
  // Requests in flight, so a shutdown knows when the last one has finished.
  let inFlight = 0;
  let idle: (() => void) | undefined;
  const tracked: express.RequestHandler = (_req, res, next) => {
    inFlight++;
    res.once('close', () => {
      if (--inFlight === 0) idle?.();
    });
    next();
  };
  const outer = express().disable('x-powered-by').use(hostRequired, tracked, app);
  // Slow clients may hold a connection only so long: headers, then the whole request; the limits are
  // checked every second rather than Node's default 30 s. Node's own refusals (too large, malformed,
  // too slow) answer with envelopes; the Host check is made by `hostRequired` for the same reason.
  const server = answerClientErrors(
    createServer(
      {
        headersTimeout: config.headersTimeoutMs,
        requestTimeout: config.requestTimeoutMs,
        connectionsCheckingInterval: 1_000,
        requireHostHeader: false,
      },
      outer,
    ),
  ).listen(config.port, config.host);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('listening', resolve);
      server.once('error', reject);
    });
  } catch (error) {
    await Promise.all([store.close().catch(() => {}), mcp?.close().catch(() => {})]);
    throw error;
  }
  const { port } = server.address() as AddressInfo;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return {
    url: `http://${host}:${port}/api/v1`,
    server,
    service,
    devKey,
    keys,
    managedKeyCount,
    models: models.listModels(),
    store,
    tools: tools.listTools(),
    close: async (deadlineMs = config.shutdownTimeoutMs) => {
      draining = true;
      // No new connections; idle keep-alive connections close now, busy ones after their answer.
      server.close();
      server.closeIdleConnections();
      const drained = new Promise<void>((resolve) => {
        idle = resolve;
        if (inFlight === 0) resolve();
      });
      let aborted = 0;
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<'deadline'>(
        (resolve) => (timer = setTimeout(() => resolve('deadline'), deadlineMs)),
      );
      if ((await Promise.race([drained, deadline])) === 'deadline') {
        aborted = inFlight;
        // Cutting the connections aborts their runs: a run stores its turn only if its model call finished.
        server.closeAllConnections();
        await Promise.race([drained, new Promise((resolve) => setTimeout(resolve, 5_000))]);
      }
      clearTimeout(timer);
      await Promise.all([store.close(), mcp?.close()]);
      return { aborted };
    },
  };
}
