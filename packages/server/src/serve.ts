#!/usr/bin/env node
import { redactSecrets } from '@agenthost/core';
import { modelLines } from './banner.js';
import { ConfigError, loadConfig, type ServerConfig } from './config.js';
import { createLogger, requestLogger } from './logging.js';
import { configuredSecrets } from './secrets.js';
import { startServer } from './server.js';
import { startTracing } from './tracing.js';

const HELP = `agenthost standalone server

Usage: agenthost-server [--help]

Settings come from environment variables:
  PORT                  port to listen on (default 3000; 0 picks a free one)
  HOST                  address to bind (default 127.0.0.1; 0.0.0.0 for all interfaces)
  AGENTHOST_API_KEYS    comma-separated account:key pairs, keys of 16+ characters
                        (unset: one development key for account "default" is made and printed)
  AGENTHOST_BODY_LIMIT  largest accepted JSON body (default 1mb)
  AGENTHOST_STORE       where data lives: memory, sqlite://<path>, redis://..., postgres://...
                        (default sqlite://./.agenthost/agenthost.sqlite)
  AGENTHOST_STORE_NAMESPACE
                        prefix of every stored key, to share one database (default agenthost)
  AGENTHOST_SECRET      deployment secret, 32+ characters: storage names derived from API keys are
                        keyed hashes under it (unset: one is made on first start and kept in the store).
                        Give every server and the keys CLI the same one; changing it invalidates issued
                        keys and restarts rate-limit counts
  AGENTHOST_RUN_WAIT_MS how long a run waits for an earlier run of its session (default 30000)
  AGENTHOST_RATE_LIMIT           requests per API key per minute (default 600; 0: no limit; shared on Redis)
  AGENTHOST_AUTH_FAILURE_LIMIT   failed authentications per client address per 15 minutes (default 30; 0: none)
  AGENTHOST_TRUST_PROXY          false (default), true, a number of proxies, or proxy addresses: where client
                                 addresses come from behind a proxy
  AGENTHOST_CORS_ORIGINS         origins whose browsers may call the API, comma-separated, or * (default: none)
  AGENTHOST_HEADERS_TIMEOUT_MS   how long a client may take to send its headers (default 10000)
  AGENTHOST_REQUEST_TIMEOUT_MS   how long a client may take to send its whole request (default 30000)
  AGENTHOST_TRACING              "true" traces requests and runs with OpenTelemetry, exported over OTLP/HTTP
                                 (OTEL_EXPORTER_OTLP_ENDPOINT and the other standard OTEL_ variables)
  AGENTHOST_TRACE_CONTENT        "true" lets traces hold run inputs and outputs (default: never)
  AGENTHOST_METRICS              "false" turns off Prometheus metrics at /metrics (default on)
  AGENTHOST_METRICS_TOKEN        a token /metrics then needs as Authorization: Bearer <token>
  AGENTHOST_LOG_CONTENT          "true" lets request logs hold run inputs and outputs (default: never)
  AGENTHOST_LOG_LEVEL            fatal, error, warn, info (default), debug, trace or silent
  AGENTHOST_LOG_FORMAT           json, pretty or auto (default: pretty in a terminal, else JSON lines)
  AGENTHOST_SHUTDOWN_TIMEOUT_MS  how long a shutdown lets requests in flight finish (default 25000)
  AGENTHOST_MAX_INPUT_CHARS      longest run input, in characters (default 32000)
  AGENTHOST_MAX_OUTPUT_TOKENS    most tokens a model may answer with per step (default 4096)
  AGENTHOST_MAX_TOOL_STEPS       most model steps of a run with a tool (default 5)
  AGENTHOST_PROVIDER_TIMEOUT_MS  how long a run waits for the provider, retries included (default 60000)
  AGENTHOST_PROVIDER_RETRIES     retries of a failed provider call, with backoff (default 2)
  AGENTHOST_UNSAFE_DISABLE_LOCKS
                        "true" turns cross-server locks off; loses writes when servers share a
                        store (for tests and demos only)
  TAVILY_API_KEY        enables the web_search tool (Tavily); TAVILY_BASE_URL overrides its address
  AGENTHOST_MCP_SERVERS MCP servers offered as tools "mcp:<name>", as JSON:
                        {"files": {"command": "npx", "args": [...]}, "docs": {"url": "https://.../mcp"}}
Model providers (models are named provider/model, e.g. openai/gpt-5-mini; GET /api/v1/models lists them):
  OPENAI_API_KEY, OPENAI_BASE_URL        switch on openai/... (a base URL alone: a compatible server, no key)
  OPENAI_API            "responses" or "chat" (default: responses, chat for a base URL without a key)
  OPENAI_MODELS         comma-separated model ids to offer instead of the catalog's OpenAI list
  ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL  switch on anthropic/...; ANTHROPIC_MODELS overrides its list
  GOOGLE_GENERATIVE_AI_API_KEY, GOOGLE_GENERATIVE_AI_BASE_URL
                        switch on google/... (Gemini); GOOGLE_MODELS overrides its list
  AGENTHOST_PROVIDERS   OpenAI-compatible endpoints by name, as JSON (and fields of the three above):
                        {"ollama": {"baseURL": "http://127.0.0.1:11434/v1"},
                         "openrouter": {"baseURL": "https://openrouter.ai/api/v1", "apiKey": "...", "models": [...]}}
`;

if (process.argv.includes('--help') || process.argv.includes('-h')) {
  process.stdout.write(HELP);
  process.exit(0);
}

let config: ServerConfig;
try {
  config = loadConfig(process.env);
} catch (error) {
  if (error instanceof ConfigError) {
    process.stderr.write(`agenthost: ${error.message}\nRun with --help for the list of settings.\n`);
    process.exit(2);
  }
  throw error;
}

// Logs go to standard error, so standard output stays the server's own messages (the banner).
const logger = createLogger({
  level: config.logLevel,
  pretty: config.logFormat === 'pretty' || (config.logFormat === 'auto' && process.stderr.isTTY === true),
  destination: process.stderr,
});

// Registered before anything traces, so every span goes to the exporter.
const stopTracing = config.tracing ? startTracing() : undefined;

const running = await startServer(config, { logger, requestLog: requestLogger(logger) }).catch(
  (error: NodeJS.ErrnoException) => {
    // A store or an MCP server that cannot be reached may quote its URL, credentials included.
    const why =
      error.code === 'EADDRINUSE'
        ? `port ${config.port} on ${config.host} is already in use (set PORT)`
        : redactSecrets(error.message, { secrets: configuredSecrets(config) });
    process.stderr.write(`agenthost: cannot start: ${why}\n`);
    process.exit(1);
  },
);

const lines = [
  `agenthost listening on ${running.url}`,
  ...modelLines(running.service.describeModels()),
  `  tools: ${running.tools.join(', ')}`,
  `  reference: ${running.url.replace(/\/api\/v1$/, '')}/docs (OpenAPI at ${running.url}/openapi.json)`,
  ...(config.tracing
    ? [
        `  traces: OTLP/HTTP to ${process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? process.env.OTEL_EXPORTER_OTLP_ENDPOINT ?? 'http://localhost:4318'}`,
      ]
    : []),
  ...(config.metrics
    ? [
        `  metrics: ${running.url.replace(/\/api\/v1$/, '')}/metrics${config.metricsToken ? ' (needs the metrics token)' : ''}`,
      ]
    : []),
  `  store: ${running.store.description}${storeNote(running.store.kind)}`,
];
if (config.unsafeDisableLocks)
  lines.push('  WARNING: AGENTHOST_UNSAFE_DISABLE_LOCKS=true: servers sharing this store will lose writes');
lines.push(
  `  keys: ${config.apiKeys?.length ?? 0} configured, ${running.managedKeyCount} issued (agenthost keys create --account <name>)`,
);
if (running.devKey) {
  lines.push(
    `  development API key for account "${running.devKey.account}": ${running.devKey.key}`,
    '  (made for this run only and not shown again; set AGENTHOST_API_KEYS to choose keys)',
  );
}
process.stdout.write(`${lines.join('\n')}\n`);

function storeNote(kind: string): string {
  if (kind === 'memory') return ' (agents and conversations last until the server stops)';
  if (kind === 'sqlite') return ' (one server per file)';
  return ' (shared: run as many servers as you like on it)';
}

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(
      `agenthost: ${signal} received, finishing in-flight requests (up to ${config.shutdownTimeoutMs} ms)\n`,
    );
    running.close().then(
      async ({ aborted }) => {
        await stopTracing?.().catch(() => {});
        if (aborted)
          process.stdout.write(
            `agenthost: aborted ${aborted} request(s) still running at the deadline; nothing of them was stored\n`,
          );
        process.stdout.write('agenthost: stopped\n');
        process.exit(0);
      },
      (error: Error) => {
        process.stderr.write(`agenthost: error while stopping: ${error.message}\n`);
        process.exit(1);
      },
    );
  });
}
