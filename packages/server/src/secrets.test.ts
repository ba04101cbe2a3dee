import { expect, test } from 'vitest';
import { loadConfig } from './config.js';
import { configuredSecrets } from './secrets.js';

test('every secret of the configuration, once each', () => {
  const config = loadConfig({
    AGENTHOST_API_KEYS: 'acme:key-acme-0123456789ab,beta:key-beta-0123456789ab',
    OPENAI_API_KEY: 'sk-openai-key',
    OPENAI_BASE_URL: 'https://proxy:pr%40xy-pass@llm.internal/v1',
    ANTHROPIC_API_KEY: 'sk-ant-key',
    GOOGLE_GENERATIVE_AI_API_KEY: 'AIza-key',
    AGENTHOST_PROVIDERS: JSON.stringify({
      gateway: { baseURL: 'https://gw:gw-pass@llm.example/v1', apiKey: 'gw-key' },
    }),
    TAVILY_API_KEY: 'tvly-key',
    AGENTHOST_METRICS_TOKEN: 'metrics-token-0123456789',
    AGENTHOST_STORE: 'redis://:store-pass@cache:6379',
    AGENTHOST_MCP_SERVERS: JSON.stringify({
      files: { command: 'npx', env: { FILES_TOKEN: 'files-token' } },
      docs: { url: 'https://docs.internal/mcp', headers: { Authorization: 'Bearer docs-token' } },
    }),
  });
  expect(configuredSecrets(config)).toStrictEqual([
    'key-acme-0123456789ab',
    'key-beta-0123456789ab',
    'tvly-key',
    'metrics-token-0123456789',
    'store-pass',
    'sk-openai-key',
    'pr%40xy-pass',
    'pr@xy-pass',
    'sk-ant-key',
    'AIza-key',
    'gw-key',
    'gw-pass',
    'files-token',
    'Bearer docs-token',
    'docs-token',
  ]);
  expect(configuredSecrets(loadConfig({}))).toStrictEqual([]);
});
