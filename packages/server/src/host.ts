import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AgentService, ApiKeyService } from '@agenthost/core';
import { answerClientErrors } from '@agenthost/express';
import type { OpenedStore } from '@agenthost/storage';
import type express from 'express';
import type { DestinationStream, Logger } from 'pino';
import { type KeyEntry, loadConfig, type ServerConfig } from './config.js';
import { createHostApp } from './host-app.js';
import { openHostResources } from './host-resources.js';
import { createHostRouters, operationalRoutes } from './host-router.js';
import { inFlight } from './in-flight.js';
import { createLogger } from './logging.js';
import { type AgentHostOptions, optionsToEnv } from './options.js';
import { playgroundRouter } from './playground.js';
import { requestLogger } from './request-log.js';
import { configuredSecrets } from './secrets.js';
import { startTracing } from './tracing.js';

/** What `createAgentHost` takes besides the options that mirror the environment. */
export interface AgentHostExtras {
  /** The logger for errors and request lines (default: one made from `logLevel` and `logFormat`, to standard error). */
  logger?: Logger;
  /** Whether the standalone app logs one line per request (default true). */
  requestLog?: boolean;
  /**
   * With `tracing` on, whether the host registers its OTLP/HTTP tracer provider (default true). An app
   * that registers its own provider passes `false`: the host's spans then go to the app's provider.
   */
  registerTracing?: boolean;
}

/** A host: the whole agenthost HTTP API, ready to listen on its own or to be mounted. */
export interface AgentHost {
  /** The standalone app: the API at `/api/v1` and `/api`, `/healthz`, `/readyz`, `/metrics`, `/docs`, `/playground`, and `/`. */
  app: express.Express;
  /**
   * The whole API, with `/healthz`, `/readyz` and `/metrics`, for an existing app to mount:
   * `app.use(['/api/v1', '/api'], host.router)`. Works after the app's own `express.json()`.
   */
  router: express.Router;
  /**
   * The chat playground's static files, for an existing app to mount at `/playground`:
   * `app.use('/playground', host.playground)` (the page calls the API at `/api/v1`). `undefined` when
   * `playground` (`AGENTHOST_PLAYGROUND`) is off. The standalone app serves it by itself.
   */
  playground: express.Router | undefined;
  /** The service the API runs on, for calls in the same process (create, run... without HTTP). */
  service: AgentService;
  /** Issues, lists and revokes the keys kept in the store. */
  keys: ApiKeyService;
  /** The store, as opened from `store` (`AGENTHOST_STORE`). */
  store: OpenedStore;
  /** The validated settings. */
  config: ServerConfig;
  /** The host's logger (pino): JSON lines, secrets redacted; the one passed in `extras`, if any. */
  logger: Logger;
  /** One log line per request (`requestLogger`), as the standalone app logs; for a mounting app to `app.use`. */
  requestLog: express.RequestHandler;
  /** The development key made because no keys were configured or issued, else `undefined`. */
  devKey: KeyEntry | undefined;
  /** How many issued keys the store held at start. */
  managedKeyCount: number;
  /** The tool names offered. */
  tools: readonly string[];
  /**
   * Starts the standalone server on `port` and `host`; resolves once it listens. When it cannot
   * listen (port in use, unknown address), it rejects and the host stays open: call `close()`.
   */
  listen(): Promise<{ url: string; server: Server }>;
  /**
   * Shuts down: readiness fails at once, a server started by `listen()` stops taking connections,
   * requests in flight (through `app` or `router`) get until the deadline (`shutdownTimeoutMs` by
   * default) to finish; the rest are cut off, which aborts their runs (nothing of them is stored).
   * Background runs of this server get until the same deadline to finish; those still going then end
   * `failed` (`server_lost`, nothing of their turn stored). Then the store, the MCP servers and tracing
   * close. Resolves with how many requests were cut off.
   */
  close(options?: { deadlineMs?: number }): Promise<{ aborted: number }>;
}

/**
 * Builds the whole host from one options object whose fields mirror the environment variables of the
 * standalone server (see {@link AgentHostOptions}; `optionsFromEnv(process.env)` reads them).
 * @throws ConfigError naming every bad setting by its variable; Error when the store or an MCP server cannot be opened.
 * @example
 * const host = await createAgentHost({ store: 'memory', apiKeys: [{ account: 'shop', key: process.env.KEY! }] });
 * app.use(['/api/v1', '/api'], host.router);
 * process.on('SIGTERM', () => host.close().then(() => process.exit(0)));
 */
export async function createAgentHost(
  options: AgentHostOptions = {},
  extras: AgentHostExtras = {},
): Promise<AgentHost> {
  return buildHost(loadConfig(optionsToEnv(options, process.env.HOME)), extras);
}

/** Where a host's own logger writes its JSON lines (made only when they are JSON lines). */
export type LogDestination = () => DestinationStream;

/** The host's own logger: readable lines in a terminal (or when asked), else JSON lines to `logTo()`. */
function hostLogger(config: ServerConfig, logTo: LogDestination) {
  const pretty = config.logFormat === 'pretty' || (config.logFormat === 'auto' && process.stderr.isTTY === true);
  return createLogger({ level: config.logLevel, pretty, ...(!pretty && { destination: logTo() }) });
}

/**
 * Builds a host from validated settings. Its own logger (without `extras.logger`) writes JSON lines to
 * `logTo()`: standard error as the process's stream, or a destination of the caller's (the standalone
 * server's writes without blocking).
 */
export async function buildHost(
  config: ServerConfig,
  extras: AgentHostExtras = {},
  logTo: LogDestination = () => process.stderr,
): Promise<AgentHost> {
  const logger = extras.logger ?? hostLogger(config, logTo);
  // Every secret of the configuration, and the development key once it is made: no log may hold one.
  const secrets = configuredSecrets(config);
  // Registered before anything traces, so every span goes to the exporter.
  const stopTracing = config.tracing && extras.registerTracing !== false ? await startTracing() : undefined;
  const resources = await openHostResources(config, logger, secrets).catch(async (error: unknown) => {
    await stopTracing?.().catch(() => {});
    throw error;
  });
  let draining = false;
  let closed = false;
  const requests = inFlight();
  const operational = operationalRoutes(config, resources, () => draining);
  const { router, untracked } = createHostRouters({
    config,
    resources,
    inFlight: requests,
    operational,
    closed: () => closed,
    logger,
    secrets,
    metrics: resources.metrics,
  });
  const requestLog = requestLogger(logger);
  const playground = config.playground ? playgroundRouter() : undefined;
  const app = createHostApp({
    playground,
    router: untracked,
    operational,
    track: requests.track,
    trustProxy: config.trustProxy,
    requestLog: extras.requestLog === false ? undefined : requestLog,
  });
  let server: Server | undefined;
  let closing: Promise<{ aborted: number }> | undefined;
  async function close(deadlineMs: number): Promise<{ aborted: number }> {
    draining = true;
    // No new connections; idle keep-alive connections close now, busy ones after their answer.
    server?.close();
    server?.closeIdleConnections();
    // Alongside the drain, the service closes: the run event readings open here end at once (their
    // readers, requests that would otherwise hold the drain to its deadline, resume on another server),
    // and this server's background runs get the whole deadline to finish.
    const [aborted] = await Promise.all([
      requests.drain(deadlineMs, () => server?.closeAllConnections()),
      resources.closeService(deadlineMs),
    ]);
    closed = true;
    try {
      await resources.close();
    } finally {
      await stopTracing?.().catch(() => {});
    }
    return { aborted };
  }
  return {
    app,
    router,
    playground,
    service: resources.service,
    keys: resources.keys,
    store: resources.store,
    config,
    logger,
    requestLog,
    devKey: resources.devKey,
    managedKeyCount: resources.managedKeyCount,
    tools: resources.tools.listTools(),
    listen: async () => {
      server = await listen(app, config);
      const { port } = server.address() as AddressInfo;
      const host = config.host.includes(':') ? `[${config.host}]` : config.host;
      return { url: `http://${host}:${port}/api/v1`, server };
    },
    close: (options = {}) => {
      closing ??= close(options.deadlineMs ?? config.shutdownTimeoutMs);
      return closing;
    },
  };
}

/**
 * Listens with the slow-client limits (headers, then the whole request, checked every second rather
 * than Node's default 30 s); Node's own refusals (too large, malformed, too slow) answer with envelopes.
 */
async function listen(app: express.Express, config: ServerConfig): Promise<Server> {
  const server = answerClientErrors(
    createServer(
      {
        headersTimeout: config.headersTimeoutMs,
        requestTimeout: config.requestTimeoutMs,
        connectionsCheckingInterval: 1_000,
        requireHostHeader: false,
      },
      app,
    ),
  );
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
    server.listen(config.port, config.host);
  });
  return server;
}
