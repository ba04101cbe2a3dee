import type { McpServerConfig } from '@agenthost/tools';
import type { KeyEntry } from './config.js';
import type { ProviderEntry } from './providers-config.js';

type Flag = boolean | 'true' | 'false';
type Whole = number | string;

/**
 * Everything `createAgentHost` is configured with: one field per environment variable of the
 * standalone server, named after it (`AGENTHOST_RATE_LIMIT` is `rateLimit`, `OPENAI_API_KEY` is
 * `openaiApiKey`), taking the variable's text or the typed value. Unset fields take the variable's
 * default; `docs/configuration.md` describes each. The options are checked by the same schema as the
 * environment, so an error names the variable a field mirrors.
 */
export interface AgentHostOptions {
  /** `PORT`: port to listen on (default 3000; 0 picks a free one). */
  port?: Whole;
  /** `HOST`: address to bind (default 127.0.0.1). */
  host?: string;
  /** `AGENTHOST_HOME`: the folder of the default store (default `~/.agenthost`). */
  home?: string;
  /** `AGENTHOST_API_KEYS`: `account:key` pairs; unset, a development key is made when none is issued. */
  apiKeys?: string | KeyEntry[];
  /** `AGENTHOST_BODY_LIMIT`: largest accepted JSON body (default `1mb`). */
  bodyLimit?: string;
  /** `AGENTHOST_STORE`: `memory`, `sqlite://<path>`, `redis://...` or `postgres://...`. */
  store?: string;
  /** `AGENTHOST_STORE_NAMESPACE`: prefix of every stored key (default `agenthost`). */
  storeNamespace?: string;
  /** `AGENTHOST_SECRET`: the deployment secret, 32+ characters (default: kept in the store). */
  secret?: string;
  /** `AGENTHOST_RUN_WAIT_MS`: how long a run waits for an earlier run of its session. */
  runWaitMs?: Whole;
  /** `AGENTHOST_UNSAFE_DISABLE_LOCKS`: cross-server locks off (tests and demos only). */
  unsafeDisableLocks?: Flag;
  /** `AGENTHOST_LOCK_LEASE_MS`: the lease of a Redis lock (how long a lost server's session stays locked). */
  lockLeaseMs?: Whole;
  /** `AGENTHOST_RUNS_MAX_IN_FLIGHT`: background runs one account may have queued or running at once. */
  runsMaxInFlight?: Whole;
  /** `AGENTHOST_RUN_EVENTS_RETENTION_S`: how long a finished background run's events can be read, in seconds. */
  runEventsRetentionS?: Whole;
  /** `AGENTHOST_RUN_RECORDS_RETENTION_S`: how long a finished background run can be read, in seconds. */
  runRecordsRetentionS?: Whole;
  /** `AGENTHOST_RUN_LEASE_MS`: the lease of a running background run (how soon a lost server's runs fail). */
  runLeaseMs?: Whole;
  /** `AGENTHOST_RUN_EVENT_READERS`: run event streams one account may have open at once on this server. */
  runEventReaders?: Whole;
  /** `AGENTHOST_RATE_LIMIT`: requests per API key per minute (0: no limit). */
  rateLimit?: Whole;
  /** `AGENTHOST_AUTH_FAILURE_LIMIT`: failed authentications per client address per 15 minutes. */
  authFailureLimit?: Whole;
  /** `AGENTHOST_TRUST_PROXY`: Express's `trust proxy`. */
  trustProxy?: boolean | number | string;
  /** `AGENTHOST_CORS_ORIGINS`: origins whose browsers may call the API, or `*`. */
  corsOrigins?: string | string[];
  /** `AGENTHOST_HEADERS_TIMEOUT_MS`: how long a client may take to send its headers. */
  headersTimeoutMs?: Whole;
  /** `AGENTHOST_REQUEST_TIMEOUT_MS`: how long a client may take to send its whole request. */
  requestTimeoutMs?: Whole;
  /** `AGENTHOST_TRACING`: trace requests and runs with OpenTelemetry, exported over OTLP/HTTP. */
  tracing?: Flag;
  /** `AGENTHOST_TRACE_CONTENT`: let traces hold run inputs and outputs. */
  traceContent?: Flag;
  /** `AGENTHOST_PLAYGROUND`: the chat playground, at `/playground` of the standalone app and as `host.playground` (default on). */
  playground?: Flag;
  /** `AGENTHOST_METRICS`: Prometheus metrics at `/metrics` (default on). */
  metrics?: Flag;
  /** `AGENTHOST_METRICS_TOKEN`: the bearer token `/metrics` then needs. */
  metricsToken?: string;
  /** `AGENTHOST_LOG_CONTENT`: let request logs hold run inputs and outputs. */
  logContent?: Flag;
  /** `AGENTHOST_LOG_LEVEL`: fatal, error, warn, info, debug, trace or silent. */
  logLevel?: string;
  /** `AGENTHOST_LOG_FORMAT`: json, pretty or auto. */
  logFormat?: 'json' | 'pretty' | 'auto';
  /** `AGENTHOST_SHUTDOWN_TIMEOUT_MS`: how long `close()` lets requests in flight finish. */
  shutdownTimeoutMs?: Whole;
  /** `AGENTHOST_MAX_INPUT_CHARS`: longest run input. */
  maxInputChars?: Whole;
  /** `AGENTHOST_MAX_OUTPUT_TOKENS`: most tokens a model may answer with per step. */
  maxOutputTokens?: Whole;
  /** `AGENTHOST_MAX_TOOL_STEPS`: most model steps of a run with a tool. */
  maxToolSteps?: Whole;
  /** `AGENTHOST_PROVIDER_TIMEOUT_MS`: how long a run waits for the provider, retries included. */
  providerTimeoutMs?: Whole;
  /** `AGENTHOST_PROVIDER_RETRIES`: retries of a failed provider call. */
  providerRetries?: Whole;
  /** `TAVILY_API_KEY`: enables the `web_search` tool. */
  tavilyApiKey?: string;
  /** `TAVILY_BASE_URL`: Tavily's address (a proxy or a test double). */
  tavilyBaseUrl?: string;
  /** `AGENTHOST_MCP_SERVERS`: MCP servers offered as tools `mcp:<name>`. */
  mcpServers?: string | Record<string, McpServerConfig>;
  /** `AGENTHOST_PROVIDERS`: OpenAI-compatible endpoints by name (and fields of the built-in providers). */
  providers?: string | Record<string, ProviderEntry>;
  /** `OPENAI_API_KEY`. */
  openaiApiKey?: string;
  /** `OPENAI_BASE_URL`: a compatible server (alone: no key, Chat Completions). */
  openaiBaseUrl?: string;
  /** `OPENAI_API`: `responses` or `chat`. */
  openaiApi?: 'responses' | 'chat';
  /** `OPENAI_MODELS`: model ids to offer instead of the catalog's. */
  openaiModels?: string | string[];
  /** `ANTHROPIC_API_KEY`. */
  anthropicApiKey?: string;
  /** `ANTHROPIC_BASE_URL`. */
  anthropicBaseUrl?: string;
  /** `ANTHROPIC_MODELS`. */
  anthropicModels?: string | string[];
  /** `GOOGLE_GENERATIVE_AI_API_KEY`. */
  googleApiKey?: string;
  /** `GOOGLE_GENERATIVE_AI_BASE_URL`. */
  googleBaseUrl?: string;
  /** `GOOGLE_MODELS`. */
  googleModels?: string | string[];
}

/** The environment variable each option mirrors: the one table between the two. */
export const OPTION_VARIABLES = {
  port: 'PORT',
  host: 'HOST',
  home: 'AGENTHOST_HOME',
  apiKeys: 'AGENTHOST_API_KEYS',
  bodyLimit: 'AGENTHOST_BODY_LIMIT',
  store: 'AGENTHOST_STORE',
  storeNamespace: 'AGENTHOST_STORE_NAMESPACE',
  secret: 'AGENTHOST_SECRET',
  runWaitMs: 'AGENTHOST_RUN_WAIT_MS',
  unsafeDisableLocks: 'AGENTHOST_UNSAFE_DISABLE_LOCKS',
  lockLeaseMs: 'AGENTHOST_LOCK_LEASE_MS',
  runsMaxInFlight: 'AGENTHOST_RUNS_MAX_IN_FLIGHT',
  runEventsRetentionS: 'AGENTHOST_RUN_EVENTS_RETENTION_S',
  runRecordsRetentionS: 'AGENTHOST_RUN_RECORDS_RETENTION_S',
  runLeaseMs: 'AGENTHOST_RUN_LEASE_MS',
  runEventReaders: 'AGENTHOST_RUN_EVENT_READERS',
  rateLimit: 'AGENTHOST_RATE_LIMIT',
  authFailureLimit: 'AGENTHOST_AUTH_FAILURE_LIMIT',
  trustProxy: 'AGENTHOST_TRUST_PROXY',
  corsOrigins: 'AGENTHOST_CORS_ORIGINS',
  headersTimeoutMs: 'AGENTHOST_HEADERS_TIMEOUT_MS',
  requestTimeoutMs: 'AGENTHOST_REQUEST_TIMEOUT_MS',
  tracing: 'AGENTHOST_TRACING',
  traceContent: 'AGENTHOST_TRACE_CONTENT',
  playground: 'AGENTHOST_PLAYGROUND',
  metrics: 'AGENTHOST_METRICS',
  metricsToken: 'AGENTHOST_METRICS_TOKEN',
  logContent: 'AGENTHOST_LOG_CONTENT',
  logLevel: 'AGENTHOST_LOG_LEVEL',
  logFormat: 'AGENTHOST_LOG_FORMAT',
  shutdownTimeoutMs: 'AGENTHOST_SHUTDOWN_TIMEOUT_MS',
  maxInputChars: 'AGENTHOST_MAX_INPUT_CHARS',
  maxOutputTokens: 'AGENTHOST_MAX_OUTPUT_TOKENS',
  maxToolSteps: 'AGENTHOST_MAX_TOOL_STEPS',
  providerTimeoutMs: 'AGENTHOST_PROVIDER_TIMEOUT_MS',
  providerRetries: 'AGENTHOST_PROVIDER_RETRIES',
  tavilyApiKey: 'TAVILY_API_KEY',
  tavilyBaseUrl: 'TAVILY_BASE_URL',
  mcpServers: 'AGENTHOST_MCP_SERVERS',
  providers: 'AGENTHOST_PROVIDERS',
  openaiApiKey: 'OPENAI_API_KEY',
  openaiBaseUrl: 'OPENAI_BASE_URL',
  openaiApi: 'OPENAI_API',
  openaiModels: 'OPENAI_MODELS',
  anthropicApiKey: 'ANTHROPIC_API_KEY',
  anthropicBaseUrl: 'ANTHROPIC_BASE_URL',
  anthropicModels: 'ANTHROPIC_MODELS',
  googleApiKey: 'GOOGLE_GENERATIVE_AI_API_KEY',
  googleBaseUrl: 'GOOGLE_GENERATIVE_AI_BASE_URL',
  googleModels: 'GOOGLE_MODELS',
} as const satisfies Record<keyof AgentHostOptions, string>;

type OptionName = keyof typeof OPTION_VARIABLES;
const NAMES = Object.keys(OPTION_VARIABLES) as OptionName[];

/**
 * The options the environment sets: each variable of the table, as its text; the rest unset.
 * @example const host = await createAgentHost(optionsFromEnv(process.env));
 */
export function optionsFromEnv(env: Record<string, string | undefined>): AgentHostOptions {
  const options: Record<string, string> = {};
  for (const name of NAMES) {
    const value = env[OPTION_VARIABLES[name]];
    if (value !== undefined) options[name] = value;
  }
  return options as AgentHostOptions;
}

/** An option's value as the text of its variable: lists comma-separated, objects as JSON. */
function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value))
    return value.map((item) => (typeof item === 'string' ? item : `${item.account}:${item.key}`)).join(',');
  return JSON.stringify(value);
}

/**
 * The environment the options stand for, so they are checked by the one schema of the environment.
 * `HOME` is passed through (the default `AGENTHOST_HOME` derives from it).
 */
export function optionsToEnv(options: AgentHostOptions, home?: string): Record<string, string> {
  const env: Record<string, string> = home === undefined ? {} : { HOME: home };
  for (const name of NAMES) {
    const value = options[name];
    if (value !== undefined) env[OPTION_VARIABLES[name]] = asText(value);
  }
  return env;
}
