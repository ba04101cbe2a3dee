// The help texts, with no imports: `agenthost --help` prints them without loading the server.

/** The commands. */
export const USAGE = `agenthost: the agenthost server and its API keys

Usage:
  agenthost serve [--help]        start the standalone server (settings below)
  agenthost keys create --account <account> [--name <label>] [--scopes agents:read,agents:write,agents:run] [--json]
      Makes a key and prints it once. It is stored only as a digest: keep it now.
  agenthost keys list [--account <account>] [--json]
      Lists keys: id, prefix, account, name, scopes, created, last used, revoked.
  agenthost keys revoke <key_id> [--json]
      Revokes a key; every server refuses it from its next request.
  agenthost --help                this text

The server and the keys commands open the same store: AGENTHOST_STORE, else
$AGENTHOST_HOME/agenthost.sqlite (AGENTHOST_HOME defaults to ~/.agenthost), whatever the working
directory. Give the keys commands the same AGENTHOST_STORE, AGENTHOST_STORE_NAMESPACE and
AGENTHOST_SECRET as the servers, so every server sharing the store sees a change at once.
`;

/** The settings, from environment variables. */
export const SETTINGS = `Settings come from environment variables:
  PORT                  port to listen on (default 3000; 0 picks a free one)
  HOST                  address to bind (default 127.0.0.1; 0.0.0.0 for all interfaces)
  AGENTHOST_HOME        agenthost's folder: the default store is $AGENTHOST_HOME/agenthost.sqlite
                        (default ~/.agenthost)
  AGENTHOST_API_KEYS    comma-separated account:key pairs, keys of 16+ characters
                        (unset, and no key issued: one development key for account "default" is made and printed)
  AGENTHOST_BODY_LIMIT  largest accepted JSON body (default 1mb)
  AGENTHOST_STORE       where data lives: memory, sqlite://<path>, redis://..., postgres://...
                        (default sqlite://$AGENTHOST_HOME/agenthost.sqlite; one server per SQLite file)
  AGENTHOST_STORE_NAMESPACE
                        prefix of every stored key, to share one database (default agenthost)
  AGENTHOST_SECRET      deployment secret, 32+ characters: storage names derived from API keys are
                        keyed hashes under it (unset: one is made on first start and kept in the store).
                        Give every server and the keys CLI the same one; changing it invalidates issued
                        keys and restarts rate-limit counts
  AGENTHOST_RUN_WAIT_MS how long a run waits for an earlier run of its session (default 30000)
  AGENTHOST_RUNS_MAX_IN_FLIGHT       background runs one account may have queued or running at once,
                                     on all servers (default 16; 429 beyond)
  AGENTHOST_RUN_EVENTS_RETENTION_S   how long a finished background run's events can be read (default 3600)
  AGENTHOST_RUN_RECORDS_RETENTION_S  how long a finished background run can be read (default 604800)
  AGENTHOST_RUN_LEASE_MS             lease of a running background run: a lost server's runs fail
                                     within 11/6 of a lease, 18.3 s by default (default 10000)
  AGENTHOST_RUN_EVENT_READERS        run event streams one account may have open at once on this
                                     server (default 64; 429 beyond)
  AGENTHOST_LOCK_LEASE_MS            lease of a Redis lock: a lost server's sessions unlock within it
                                     (default 15000; at least 10000)
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
  AGENTHOST_PLAYGROUND           "false" turns off the chat playground at /playground (default on)
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
An AGENTHOST_ variable that is none of these is reported at start (a likely typo).
`;
