import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { ConfigError, loadConfig } from './config.js';
import { modelsFor } from './models.js';

describe('loadConfig', () => {
  test('defaults with an empty environment', () => {
    expect(loadConfig({})).toStrictEqual({
      port: 3000,
      host: '127.0.0.1',
      apiKeys: undefined,
      providers: { compatible: {} },
      bodyLimit: '1mb',
      tavilyApiKey: undefined,
      tavilyBaseURL: undefined,
      mcpServers: {},
      store: `sqlite://${join(homedir(), '.agenthost', 'agenthost.sqlite')}`,
      storeNamespace: 'agenthost',
      secret: undefined,
      runWaitMs: 30_000,
      unsafeDisableLocks: false,
      lockLeaseMs: 15_000,
      backgroundRuns: {
        maxInFlight: 16,
        eventRetentionMs: 3_600_000,
        recordRetentionMs: 604_800_000,
        leaseMs: 10_000,
        maxEventReaders: 64,
      },
      rateLimitPerMinute: 600,
      authFailureLimit: 30,
      trustProxy: false,
      corsOrigins: [],
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      shutdownTimeoutMs: 25_000,
      tracing: false,
      traceContent: false,
      playground: true,
      metrics: true,
      metricsToken: undefined,
      logContent: false,
      logLevel: 'info',
      logFormat: 'auto',
      limits: {
        maxInputChars: 32_000,
        maxOutputTokens: 4_096,
        maxToolSteps: 5,
        providerTimeoutMs: 60_000,
        providerRetries: 2,
      },
    });
  });

  test('every setting, with blank values meaning unset', () => {
    expect(
      loadConfig({
        PORT: '8080',
        HOST: '0.0.0.0',
        AGENTHOST_API_KEYS: ' acme:key-acme-0123456789 , beta:key:with:colons-0123 ,',
        AGENTHOST_BODY_LIMIT: '512kb',
        OPENAI_API_KEY: 'sk-1',
        OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1',
        OPENAI_API: 'chat',
        OPENAI_MODELS: 'llama3.2, qwen2.5 ,',
        AGENTHOST_STORE: 'redis://127.0.0.1:6379/2',
        TAVILY_API_KEY: 'tvly-1',
        AGENTHOST_MCP_SERVERS: JSON.stringify({
          files: { command: 'npx', args: ['-y', 'some-mcp-server'] },
          docs: { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer x' } },
        }),
        AGENTHOST_RUN_WAIT_MS: '5000',
        AGENTHOST_STORE_NAMESPACE: 'blue-deploy',
        AGENTHOST_SECRET: 'a-deployment-secret-of-32-chars!',
        AGENTHOST_MAX_INPUT_CHARS: '1000',
        AGENTHOST_RATE_LIMIT: '0',
        AGENTHOST_AUTH_FAILURE_LIMIT: '5',
        AGENTHOST_TRUST_PROXY: '10.0.0.0/8,127.0.0.1',
        AGENTHOST_CORS_ORIGINS: 'https://app.example.com, https://admin.example.com',
        AGENTHOST_HEADERS_TIMEOUT_MS: '5000',
        AGENTHOST_REQUEST_TIMEOUT_MS: '20000',
        AGENTHOST_SHUTDOWN_TIMEOUT_MS: '5000',
        AGENTHOST_LOG_LEVEL: 'warn',
        AGENTHOST_PLAYGROUND: 'false',
        AGENTHOST_METRICS: 'false',
        AGENTHOST_TRACING: 'true',
        AGENTHOST_LOG_FORMAT: 'json',
        AGENTHOST_MAX_OUTPUT_TOKENS: '512',
        AGENTHOST_MAX_TOOL_STEPS: '3',
        AGENTHOST_PROVIDER_TIMEOUT_MS: '30000',
        AGENTHOST_PROVIDER_RETRIES: '0',
        AGENTHOST_UNSAFE_DISABLE_LOCKS: 'false',
        AGENTHOST_LOCK_LEASE_MS: '20000',
        AGENTHOST_RUNS_MAX_IN_FLIGHT: '4',
        AGENTHOST_RUN_EVENTS_RETENTION_S: '60',
        AGENTHOST_RUN_RECORDS_RETENTION_S: '86400',
        AGENTHOST_RUN_LEASE_MS: '2000',
        AGENTHOST_RUN_EVENT_READERS: '8',
        UNRELATED: 'x',
      }),
    ).toStrictEqual({
      port: 8080,
      host: '0.0.0.0',
      apiKeys: [
        { account: 'acme', key: 'key-acme-0123456789' },
        { account: 'beta', key: 'key:with:colons-0123' },
      ],
      providers: {
        openai: { apiKey: 'sk-1', baseURL: 'http://127.0.0.1:11434/v1', models: ['llama3.2', 'qwen2.5'], api: 'chat' },
        compatible: {},
      },
      bodyLimit: '512kb',
      tavilyApiKey: 'tvly-1',
      tavilyBaseURL: undefined,
      mcpServers: {
        files: { command: 'npx', args: ['-y', 'some-mcp-server'] },
        docs: { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer x' } },
      },
      store: 'redis://127.0.0.1:6379/2',
      storeNamespace: 'blue-deploy',
      secret: 'a-deployment-secret-of-32-chars!',
      runWaitMs: 5000,
      unsafeDisableLocks: false,
      lockLeaseMs: 20_000,
      backgroundRuns: {
        maxInFlight: 4,
        eventRetentionMs: 60_000,
        recordRetentionMs: 86_400_000,
        leaseMs: 2_000,
        maxEventReaders: 8,
      },
      rateLimitPerMinute: 0,
      authFailureLimit: 5,
      trustProxy: '10.0.0.0/8,127.0.0.1',
      corsOrigins: ['https://app.example.com', 'https://admin.example.com'],
      headersTimeoutMs: 5_000,
      requestTimeoutMs: 20_000,
      shutdownTimeoutMs: 5_000,
      tracing: true,
      traceContent: false,
      playground: false,
      metrics: false,
      metricsToken: undefined,
      logContent: false,
      logLevel: 'warn',
      logFormat: 'json',
      limits: {
        maxInputChars: 1000,
        maxOutputTokens: 512,
        maxToolSteps: 3,
        providerTimeoutMs: 30_000,
        providerRetries: 0,
      },
    });
    expect(loadConfig({ PORT: '', AGENTHOST_API_KEYS: '  ', OPENAI_MODELS: '' })).toMatchObject({
      port: 3000,
      apiKeys: undefined,
      providers: { compatible: {} },
    });
  });

  test('every bad value is named in one error, and no key is repeated', () => {
    let error: unknown;
    try {
      loadConfig({
        PORT: '70000',
        AGENTHOST_API_KEYS: 'acme:short-secret,nocolon-secret-value-123,bad account:key-0123456789abcdef',
        AGENTHOST_BODY_LIMIT: 'lots',
        OPENAI_BASE_URL: 'ftp://example',
        OPENAI_API: 'completions',
        AGENTHOST_STORE: 'mysql://x',
        AGENTHOST_RUN_WAIT_MS: '0',
        AGENTHOST_UNSAFE_DISABLE_LOCKS: 'yes',
        AGENTHOST_SECRET: 'too-short-secret-value',
        AGENTHOST_RUN_RECORDS_RETENTION_S: '60',
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toStrictEqual([
      'PORT: must be 0-65535',
      'AGENTHOST_API_KEYS: entry 1 (account "acme"): the key must be at least 16 characters',
      'AGENTHOST_API_KEYS: entry 2 is not "account:key"',
      'AGENTHOST_API_KEYS: entry 3: the account must be 1-64 characters of letters, digits, ".", "_" or "-"',
      'AGENTHOST_BODY_LIMIT: must be a size such as 1048576, 512kb or 1mb',
      'AGENTHOST_STORE: must be "memory" or a sqlite://, redis://, rediss:// or postgres:// location',
      'AGENTHOST_SECRET: must be at least 32 characters',
      'AGENTHOST_RUN_WAIT_MS: must be at least 1',
      'AGENTHOST_UNSAFE_DISABLE_LOCKS: must be "true" or "false"',
      "AGENTHOST_RUN_RECORDS_RETENTION_S: must be at least AGENTHOST_RUN_EVENTS_RETENTION_S (3600), since a run's events are read through its record",
      'OPENAI_BASE_URL: must be an http(s) URL',
      'OPENAI_API: must be "responses" or "chat"',
    ]);
    expect((error as Error).message).not.toMatch(
      /short-secret|nocolon-secret|key-0123456789abcdef|too-short-secret-value/,
    );
  });

  test.each([
    [{ PORT: 'abc' }, 'PORT: must be a number'],
    [{ PORT: '80.5' }, 'PORT: must be a whole number'],
    [{ AGENTHOST_API_KEYS: ',' }, 'AGENTHOST_API_KEYS: no "account:key" entries'],
    [{ AGENTHOST_MAX_TOOL_STEPS: '0' }, 'AGENTHOST_MAX_TOOL_STEPS: must be at least 1'],
    [
      { AGENTHOST_MCP_SERVERS: '{nope' },
      'AGENTHOST_MCP_SERVERS: must be JSON, e.g. {"files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/data"]}}',
    ],
    [{ AGENTHOST_MCP_SERVERS: '["x"]' }, 'AGENTHOST_MCP_SERVERS: Invalid input: expected record, received array'],
    [
      { AGENTHOST_MCP_SERVERS: '{"docs": {"url": "ftp://x"}}' },
      'AGENTHOST_MCP_SERVERS.docs.url: must be an http(s) URL',
    ],
    [
      { AGENTHOST_MCP_SERVERS: '{"docs": {"port": 1}}' },
      'AGENTHOST_MCP_SERVERS.docs: each server needs {"command": ..., "args"?, "env"?, "cwd"?} (stdio) or {"url": "http(s)://...", "headers"?} (HTTP)',
    ],
    [
      { AGENTHOST_MCP_SERVERS: '{"bad name": {"command": "x"}}' },
      'AGENTHOST_MCP_SERVERS.bad name: server names are 1-64 characters of letters, digits, "_" or "-"',
    ],
    [{ AGENTHOST_PROVIDER_RETRIES: '11' }, 'AGENTHOST_PROVIDER_RETRIES: must be at most 10'],
    [{ AGENTHOST_RUNS_MAX_IN_FLIGHT: '0' }, 'AGENTHOST_RUNS_MAX_IN_FLIGHT: must be at least 1'],
    [{ AGENTHOST_RUNS_MAX_IN_FLIGHT: 'many' }, 'AGENTHOST_RUNS_MAX_IN_FLIGHT: must be a number'],
    [{ AGENTHOST_RUN_EVENTS_RETENTION_S: '2592001' }, 'AGENTHOST_RUN_EVENTS_RETENTION_S: must be at most 2592000'],
    [{ AGENTHOST_RUN_RECORDS_RETENTION_S: '1.5' }, 'AGENTHOST_RUN_RECORDS_RETENTION_S: must be a whole number'],
    [{ AGENTHOST_RUN_LEASE_MS: '999' }, 'AGENTHOST_RUN_LEASE_MS: must be at least 1000'],
    [{ AGENTHOST_LOCK_LEASE_MS: '2000' }, 'AGENTHOST_LOCK_LEASE_MS: must be at least 10000'],
    [{ AGENTHOST_RUN_EVENT_READERS: '0' }, 'AGENTHOST_RUN_EVENT_READERS: must be at least 1'],
    [{ AGENTHOST_RUN_EVENT_READERS: '10001' }, 'AGENTHOST_RUN_EVENT_READERS: must be at most 10000'],
    [
      { AGENTHOST_RUN_RECORDS_RETENTION_S: '600' },
      "AGENTHOST_RUN_RECORDS_RETENTION_S: must be at least AGENTHOST_RUN_EVENTS_RETENTION_S (3600), since a run's events are read through its record",
    ],
    [
      { AGENTHOST_RUN_EVENTS_RETENTION_S: '120', AGENTHOST_RUN_RECORDS_RETENTION_S: '60' },
      "AGENTHOST_RUN_RECORDS_RETENTION_S: must be at least AGENTHOST_RUN_EVENTS_RETENTION_S (120), since a run's events are read through its record",
    ],
    [{ AGENTHOST_MAX_INPUT_CHARS: 'lots' }, 'AGENTHOST_MAX_INPUT_CHARS: must be a number'],
    [
      { AGENTHOST_API_KEYS: 'a:same-key-0123456789,b:same-key-0123456789' },
      'AGENTHOST_API_KEYS: entry 2 (account "b"): the same key is listed twice',
    ],
  ])('%j is refused: %s', (env, problem) => {
    expect(() => loadConfig(env)).toThrow(expect.objectContaining({ problems: [problem] }));
  });
});

describe('model providers', () => {
  test('each built-in provider is switched on by its usual variables; compatible endpoints come from AGENTHOST_PROVIDERS', () => {
    const config = loadConfig({
      ANTHROPIC_API_KEY: 'sk-ant-1',
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:4000/v1',
      GOOGLE_GENERATIVE_AI_API_KEY: 'AIza-1',
      GOOGLE_MODELS: 'gemini-2.5-flash',
      AGENTHOST_PROVIDERS: JSON.stringify({
        ollama: { baseURL: 'http://127.0.0.1:11434/v1' },
        openrouter: { baseURL: 'https://openrouter.ai/api/v1', apiKey: 'sk-or-1', models: ['openai/gpt-5-mini'] },
        openai: { models: ['gpt-5-mini'] },
      }),
    });
    expect(config.providers).toStrictEqual({
      openai: { models: ['gpt-5-mini'] },
      anthropic: { apiKey: 'sk-ant-1', baseURL: 'http://127.0.0.1:4000/v1' },
      google: { apiKey: 'AIza-1', models: ['gemini-2.5-flash'] },
      compatible: {
        ollama: { baseURL: 'http://127.0.0.1:11434/v1' },
        openrouter: { baseURL: 'https://openrouter.ai/api/v1', apiKey: 'sk-or-1', models: ['openai/gpt-5-mini'] },
      },
    });
  });

  test('input says what an endpoint’s models read: text only unless it says more', () => {
    const config = loadConfig({
      AGENTHOST_PROVIDERS: JSON.stringify({
        vllm: { baseURL: 'http://127.0.0.1:8000/v1', input: ['text', 'image'] },
        ollama: { baseURL: 'http://127.0.0.1:11434/v1' },
        openai: { apiKey: 'sk-1', input: ['text'] },
      }),
    });
    expect(config.providers.compatible.vllm).toStrictEqual({
      baseURL: 'http://127.0.0.1:8000/v1',
      input: ['text', 'image'],
    });
    const models = modelsFor(config.providers);
    expect(models.modelInfo?.('vllm/qwen2.5-vl')?.input).toStrictEqual(['text', 'image']);
    expect(models.modelInfo?.('ollama/llama3.2')?.input).toBeUndefined();
    expect(models.modelInfo?.('openai/gpt-5-mini')?.input).toStrictEqual(['text']);
    expect(models.modelInfo?.('echo')?.input).toBeUndefined();
  });

  test.each([
    [
      'not JSON',
      '{ollama',
      'AGENTHOST_PROVIDERS: must be JSON, e.g. {"ollama": {"baseURL": "http://127.0.0.1:11434/v1"}}',
    ],
    [
      'no baseURL',
      '{"ollama": {}}',
      'AGENTHOST_PROVIDERS.ollama.baseURL: an OpenAI-compatible endpoint needs its baseURL',
    ],
    [
      'a bad name',
      '{"My Gateway": {"baseURL": "http://x.example/v1"}}',
      'AGENTHOST_PROVIDERS.My Gateway: provider names are 1-32 of a-z, 0-9, "-", "_" (and not "agenthost")',
    ],
    [
      'the echo model’s provider',
      '{"agenthost": {"baseURL": "http://x.example/v1"}}',
      'AGENTHOST_PROVIDERS.agenthost: provider names are 1-32 of a-z, 0-9, "-", "_" (and not "agenthost")',
    ],
    [
      'an unknown field',
      '{"ollama": {"baseURL": "http://x.example/v1", "key": "x"}}',
      'AGENTHOST_PROVIDERS.ollama: Unrecognized key: "key"',
    ],
    [
      'api on another provider',
      '{"anthropic": {"api": "chat", "apiKey": "k"}}',
      'AGENTHOST_PROVIDERS.anthropic.api: api applies to openai only',
    ],
    [
      'an input kind that is not one',
      '{"vllm": {"baseURL": "http://x.example/v1", "input": ["text", "video"]}}',
      'AGENTHOST_PROVIDERS.vllm.input.1: must be "text", "image" or "file"',
    ],
    [
      'an input without text',
      '{"vllm": {"baseURL": "http://x.example/v1", "input": ["image"]}}',
      'AGENTHOST_PROVIDERS.vllm.input: must include "text"',
    ],
    [
      'a base URL for Anthropic without a key',
      '{"anthropic": {"baseURL": "http://gw.example/v1"}}',
      'ANTHROPIC_BASE_URL: needs ANTHROPIC_API_KEY too (any value, when a gateway holds the key)',
    ],
  ])('AGENTHOST_PROVIDERS with %s is refused, naming the variable', (_, value, problem) => {
    expect(() => loadConfig({ AGENTHOST_PROVIDERS: value })).toThrow(new ConfigError([problem]));
  });
});
