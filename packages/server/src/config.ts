import { isIP } from 'node:net';
import { MIN_SECRET_LENGTH } from '@agenthost/core';
import type { McpServerConfig } from '@agenthost/tools';
import { z } from 'zod';
import {
  type BackgroundRunSettings,
  backgroundRunProblems,
  backgroundRunSettings,
  backgroundRunVariables,
} from './background-runs-config.js';
import { httpUrl, jsonText, optional, whole } from './env-schema.js';
import { defaultStore } from './home.js';
import { type ProvidersConfig, readProviders } from './providers-config.js';

/** One API key: the account it authenticates and the secret. */
export interface KeyEntry {
  account: string;
  key: string;
}

/** The standalone server's settings, validated. */
export interface ServerConfig {
  port: number;
  host: string;
  /** Configured keys; `undefined` means "make one development key for account `default`". */
  apiKeys: KeyEntry[] | undefined;
  /** The model providers: OpenAI, Anthropic, Google and OpenAI-compatible endpoints. */
  providers: ProvidersConfig;
  bodyLimit: string;
  /** Tavily API key: enables the `web_search` tool. */
  tavilyApiKey: string | undefined;
  /** Tavily API base URL (for a proxy or a test double). */
  tavilyBaseURL: string | undefined;
  /** MCP servers offered as tools named `mcp:<name>`. */
  mcpServers: Record<string, McpServerConfig>;
  /** `memory`, or a `sqlite://`, `redis://` or `postgres://` location. */
  store: string;
  /** Prefix of every stored key, so deployments can share one database. */
  storeNamespace: string;
  /**
   * The deployment secret under which storage names derived from API keys are hashed; `undefined`
   * means "use the one kept in the store, made there on first start".
   */
  secret: string | undefined;
  /** How long a run waits for an earlier run of the same session, in ms. */
  runWaitMs: number;
  /** Cross-process locks off: loses writes when servers share a store. For tests and demos only. */
  unsafeDisableLocks: boolean;
  /** The lease of a Redis lock, in ms: how long a session a lost server was running stays locked. */
  lockLeaseMs: number;
  /** Limits of background runs. */
  backgroundRuns: BackgroundRunSettings;
  /** Requests per API key per minute (0: no limit). */
  rateLimitPerMinute: number;
  /** Failed authentications per client address per 15 minutes (0: no limit). */
  authFailureLimit: number;
  /** Express's `trust proxy`: false, true, a hop count, or addresses/subnets of trusted proxies. */
  trustProxy: boolean | number | string;
  /** Origins allowed by CORS (`*` for any); none when empty: browsers on other origins cannot call the API. */
  corsOrigins: string[];
  /** How long a client may take to send the request headers, in ms. */
  headersTimeoutMs: number;
  /** How long a client may take to send the whole request, in ms. */
  requestTimeoutMs: number;
  /** How long a shutdown lets requests in flight finish before aborting them, in ms. */
  shutdownTimeoutMs: number;
  /** Whether requests and runs are traced with OpenTelemetry (exported over OTLP/HTTP). */
  tracing: boolean;
  /** Whether traces may hold run inputs and outputs. */
  traceContent: boolean;
  /** Whether the host offers the chat playground (at `/playground` of the standalone app). */
  playground: boolean;
  /** Whether `/metrics` serves Prometheus metrics. */
  metrics: boolean;
  /** When set, `/metrics` needs `Authorization: Bearer <token>`. */
  metricsToken: string | undefined;
  /** Whether request logs may hold run inputs and outputs. */
  logContent: boolean;
  /** Log level: fatal, error, warn, info, debug, trace or silent. */
  logLevel: string;
  /** Log format: `json`, `pretty`, or `auto` (pretty when standard output is a terminal). */
  logFormat: 'json' | 'pretty' | 'auto';
  /** Limits of a run. */
  limits: {
    maxInputChars: number;
    maxOutputTokens: number;
    maxToolSteps: number;
    providerTimeoutMs: number;
    providerRetries: number;
  };
}

/** A configuration that cannot be used; `problems` has one line per bad setting. */
export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

/** Shortest key accepted from AGENTHOST_API_KEYS. */
export const MIN_KEY_LENGTH = 16;
const ACCOUNT = /^[A-Za-z0-9._-]{1,64}$/;
const HOST_NAME =
  /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

const mcpServer = z.union(
  [
    z.strictObject({
      command: z.string().min(1),
      args: z.array(z.string()).optional(),
      env: z.record(z.string(), z.string()).optional(),
      cwd: z.string().min(1).optional(),
    }),
    z.strictObject({ url: httpUrl, headers: z.record(z.string(), z.string()).optional() }),
  ],
  {
    error:
      'each server needs {"command": ..., "args"?, "env"?, "cwd"?} (stdio) or {"url": "http(s)://...", "headers"?} (HTTP)',
  },
);

const mcpServers = jsonText(
  '{"files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/data"]}}',
).pipe(
  z.record(z.string(), mcpServer).superRefine((servers, ctx) => {
    for (const name of Object.keys(servers)) {
      if (!/^[A-Za-z0-9_-]{1,64}$/.test(name))
        ctx.addIssue({
          code: 'custom',
          path: [name],
          message: 'server names are 1-64 characters of letters, digits, "_" or "-"',
        });
    }
  }),
);

const apiKeys = z.string().transform((text, ctx): KeyEntry[] => {
  const entries: KeyEntry[] = [];
  const seen = new Set<string>();
  text.split(',').forEach((raw, i) => {
    const pair = raw.trim();
    if (!pair) return;
    const colon = pair.indexOf(':');
    const account = colon < 0 ? '' : pair.slice(0, colon).trim();
    const key = colon < 0 ? '' : pair.slice(colon + 1).trim();
    // Never echo the pair itself: it may hold a real key.
    if (colon < 0) ctx.addIssue({ code: 'custom', message: `entry ${i + 1} is not "account:key"` });
    else if (!ACCOUNT.test(account))
      ctx.addIssue({
        code: 'custom',
        message: `entry ${i + 1}: the account must be 1-64 characters of letters, digits, ".", "_" or "-"`,
      });
    else if (key.length < MIN_KEY_LENGTH)
      ctx.addIssue({
        code: 'custom',
        message: `entry ${i + 1} (account "${account}"): the key must be at least ${MIN_KEY_LENGTH} characters`,
      });
    else if (seen.has(key))
      ctx.addIssue({ code: 'custom', message: `entry ${i + 1} (account "${account}"): the same key is listed twice` });
    else {
      seen.add(key);
      entries.push({ account, key });
    }
  });
  if (entries.length === 0 && ctx.issues.length === 0)
    ctx.addIssue({ code: 'custom', message: 'no "account:key" entries' });
  return entries;
});

const envSchema = z.object({
  PORT: optional(
    z.coerce
      .number({ error: 'must be a number' })
      .int('must be a whole number')
      .min(0, 'must be 0-65535')
      .max(65535, 'must be 0-65535'),
  ).transform((p) => p ?? 3000),
  HOST: optional(
    z.string().refine((h) => isIP(h) !== 0 || HOST_NAME.test(h), {
      error: 'must be an IP address (such as 127.0.0.1, 0.0.0.0 or ::) or a host name',
    }),
  ).transform((h) => h ?? '127.0.0.1'),
  AGENTHOST_HOME: optional(z.string()),
  AGENTHOST_API_KEYS: optional(apiKeys),
  AGENTHOST_BODY_LIMIT: optional(
    z.string().regex(/^\d+(b|kb|mb)?$/i, 'must be a size such as 1048576, 512kb or 1mb'),
  ).transform((s) => s ?? '1mb'),
  AGENTHOST_STORE: optional(
    z.string().refine((s) => s === 'memory' || /^(sqlite|redis|rediss|postgres|postgresql):\/\/./.test(s), {
      error: 'must be "memory" or a sqlite://, redis://, rediss:// or postgres:// location',
    }),
  ),
  AGENTHOST_STORE_NAMESPACE: optional(
    z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1-64 characters of letters, digits, "_" or "-"'),
  ).transform((s) => s ?? 'agenthost'),
  AGENTHOST_SECRET: optional(z.string().min(MIN_SECRET_LENGTH, `must be at least ${MIN_SECRET_LENGTH} characters`)),
  AGENTHOST_RUN_WAIT_MS: optional(
    z.coerce
      .number({ error: 'must be a number' })
      .int('must be a whole number')
      .min(1, 'must be at least 1')
      .max(600_000, 'must be at most 600000'),
  ).transform((n) => n ?? 30_000),
  AGENTHOST_UNSAFE_DISABLE_LOCKS: optional(z.enum(['true', 'false'], { error: 'must be "true" or "false"' })).transform(
    (v) => v === 'true',
  ),
  ...backgroundRunVariables,
  AGENTHOST_RATE_LIMIT: optional(whole(0, 1_000_000)).transform((n) => n ?? 600),
  AGENTHOST_AUTH_FAILURE_LIMIT: optional(whole(0, 1_000_000)).transform((n) => n ?? 30),
  AGENTHOST_TRUST_PROXY: optional(
    z
      .string()
      .regex(
        /^(true|false|\d{1,2}|[0-9a-fA-F.:/]+(,[0-9a-fA-F.:/]+)*)$/,
        'must be true, false, a number of proxies, or comma-separated proxy addresses',
      ),
  ).transform((v) =>
    v === undefined || v === 'false' ? false : v === 'true' ? true : /^\d+$/.test(v) ? Number(v) : v,
  ),
  AGENTHOST_CORS_ORIGINS: optional(z.string()).transform(
    (s) =>
      s
        ?.split(',')
        .map((o) => o.trim())
        .filter(Boolean) ?? [],
  ),
  AGENTHOST_HEADERS_TIMEOUT_MS: optional(whole(1_000, 300_000)).transform((n) => n ?? 10_000),
  AGENTHOST_REQUEST_TIMEOUT_MS: optional(whole(1_000, 3_600_000)).transform((n) => n ?? 30_000),
  AGENTHOST_TRACING: optional(z.enum(['true', 'false'], { error: 'must be "true" or "false"' })).transform(
    (v) => v === 'true',
  ),
  AGENTHOST_TRACE_CONTENT: optional(z.enum(['true', 'false'], { error: 'must be "true" or "false"' })).transform(
    (v) => v === 'true',
  ),
  AGENTHOST_PLAYGROUND: optional(z.enum(['true', 'false'], { error: 'must be "true" or "false"' })).transform(
    (v) => v !== 'false',
  ),
  AGENTHOST_METRICS: optional(z.enum(['true', 'false'], { error: 'must be "true" or "false"' })).transform(
    (v) => v !== 'false',
  ),
  AGENTHOST_METRICS_TOKEN: optional(z.string().min(16, 'must be at least 16 characters')),
  AGENTHOST_LOG_CONTENT: optional(z.enum(['true', 'false'], { error: 'must be "true" or "false"' })).transform(
    (v) => v === 'true',
  ),
  AGENTHOST_LOG_LEVEL: optional(
    z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
      error: 'must be one of fatal, error, warn, info, debug, trace, silent',
    }),
  ).transform((l) => l ?? 'info'),
  AGENTHOST_LOG_FORMAT: optional(
    z.enum(['json', 'pretty', 'auto'], { error: 'must be json, pretty or auto' }),
  ).transform((f) => f ?? 'auto'),
  AGENTHOST_SHUTDOWN_TIMEOUT_MS: optional(whole(0, 600_000)).transform((n) => n ?? 25_000),
  AGENTHOST_MAX_INPUT_CHARS: optional(whole(1, 1_000_000)).transform((n) => n ?? 32_000),
  AGENTHOST_MAX_OUTPUT_TOKENS: optional(whole(1, 1_000_000)).transform((n) => n ?? 4_096),
  AGENTHOST_MAX_TOOL_STEPS: optional(whole(1, 50)).transform((n) => n ?? 5),
  AGENTHOST_PROVIDER_TIMEOUT_MS: optional(whole(100, 3_600_000)).transform((n) => n ?? 60_000),
  AGENTHOST_PROVIDER_RETRIES: optional(whole(0, 10)).transform((n) => n ?? 2),
  TAVILY_API_KEY: optional(z.string()),
  TAVILY_BASE_URL: optional(httpUrl),
  AGENTHOST_MCP_SERVERS: optional(mcpServers).transform((m) => m ?? {}),
});

/** The names of the environment variables the server reads, besides the model providers'. */
export const SERVER_VARIABLES: readonly string[] = Object.keys(envSchema.shape);

/**
 * Reads the server's settings from environment variables.
 * @throws ConfigError naming every bad variable (values of secrets are never repeated).
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): ServerConfig {
  const parsed = envSchema.safeParse(env);
  const models = readProviders(env);
  const problems = [
    ...(parsed.success ? [] : parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`)),
    ...backgroundRunProblems(env),
    ...('problems' in models ? models.problems : []),
  ];
  if (!parsed.success || 'problems' in models || problems.length) throw new ConfigError(problems);
  const e = parsed.data;
  return {
    port: e.PORT,
    host: e.HOST,
    apiKeys: e.AGENTHOST_API_KEYS,
    providers: models.providers,
    bodyLimit: e.AGENTHOST_BODY_LIMIT,
    tavilyApiKey: e.TAVILY_API_KEY,
    tavilyBaseURL: e.TAVILY_BASE_URL,
    mcpServers: e.AGENTHOST_MCP_SERVERS as Record<string, McpServerConfig>,
    // The default store follows AGENTHOST_HOME, so it does not depend on the working directory.
    store: e.AGENTHOST_STORE ?? defaultStore(env),
    storeNamespace: e.AGENTHOST_STORE_NAMESPACE,
    secret: e.AGENTHOST_SECRET,
    runWaitMs: e.AGENTHOST_RUN_WAIT_MS,
    unsafeDisableLocks: e.AGENTHOST_UNSAFE_DISABLE_LOCKS,
    lockLeaseMs: e.AGENTHOST_LOCK_LEASE_MS,
    backgroundRuns: backgroundRunSettings(e),
    rateLimitPerMinute: e.AGENTHOST_RATE_LIMIT,
    authFailureLimit: e.AGENTHOST_AUTH_FAILURE_LIMIT,
    trustProxy: e.AGENTHOST_TRUST_PROXY,
    corsOrigins: e.AGENTHOST_CORS_ORIGINS,
    headersTimeoutMs: e.AGENTHOST_HEADERS_TIMEOUT_MS,
    requestTimeoutMs: e.AGENTHOST_REQUEST_TIMEOUT_MS,
    shutdownTimeoutMs: e.AGENTHOST_SHUTDOWN_TIMEOUT_MS,
    tracing: e.AGENTHOST_TRACING,
    traceContent: e.AGENTHOST_TRACE_CONTENT,
    playground: e.AGENTHOST_PLAYGROUND,
    metrics: e.AGENTHOST_METRICS,
    metricsToken: e.AGENTHOST_METRICS_TOKEN,
    logContent: e.AGENTHOST_LOG_CONTENT,
    logLevel: e.AGENTHOST_LOG_LEVEL,
    logFormat: e.AGENTHOST_LOG_FORMAT,
    limits: {
      maxInputChars: e.AGENTHOST_MAX_INPUT_CHARS,
      maxOutputTokens: e.AGENTHOST_MAX_OUTPUT_TOKENS,
      maxToolSteps: e.AGENTHOST_MAX_TOOL_STEPS,
      providerTimeoutMs: e.AGENTHOST_PROVIDER_TIMEOUT_MS,
      providerRetries: e.AGENTHOST_PROVIDER_RETRIES,
    },
  };
}
