import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { ConfigError, loadConfig } from './config.js';
import { createAgentHost } from './host.js';
import { OPTION_VARIABLES, optionsFromEnv, optionsToEnv } from './options.js';
import { KNOWN_VARIABLES, unknownVariableWarnings } from './unknown-variables.js';

const dir = await mkdtemp(join(tmpdir(), 'agenthost-options-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('options mirror the environment', () => {
  test('every option stands for one variable the server reads, and every variable has its option', () => {
    expect([...Object.values(OPTION_VARIABLES)].sort()).toStrictEqual([...KNOWN_VARIABLES].sort());
  });

  test('optionsFromEnv takes the variables of the table, and nothing else', () => {
    expect(
      optionsFromEnv({ PORT: '8080', AGENTHOST_RATE_LIMIT: '5', OPENAI_API_KEY: 'sk-1', PATH: '/bin' }),
    ).toStrictEqual({
      port: '8080',
      rateLimit: '5',
      openaiApiKey: 'sk-1',
    });
  });

  test('typed options are checked by the schema of the environment, as the variables they mirror', () => {
    const env = optionsToEnv({
      port: 8080,
      apiKeys: [{ account: 'acme', key: 'key-acme-0123456789' }],
      corsOrigins: ['https://a.example', 'https://b.example'],
      tracing: false,
      metrics: 'false',
      mcpServers: { files: { command: 'npx' } },
      openaiModels: ['llama3.2'],
      openaiBaseUrl: 'http://127.0.0.1:11434/v1',
    });
    expect(env).toStrictEqual({
      PORT: '8080',
      AGENTHOST_API_KEYS: 'acme:key-acme-0123456789',
      AGENTHOST_CORS_ORIGINS: 'https://a.example,https://b.example',
      AGENTHOST_TRACING: 'false',
      AGENTHOST_METRICS: 'false',
      AGENTHOST_MCP_SERVERS: '{"files":{"command":"npx"}}',
      OPENAI_MODELS: 'llama3.2',
      OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1',
    });
    expect(loadConfig(env)).toMatchObject({
      port: 8080,
      apiKeys: [{ account: 'acme', key: 'key-acme-0123456789' }],
      corsOrigins: ['https://a.example', 'https://b.example'],
      metrics: false,
      mcpServers: { files: { command: 'npx' } },
      providers: { openai: { baseURL: 'http://127.0.0.1:11434/v1', models: ['llama3.2'] }, compatible: {} },
    });
  });

  test('createAgentHost refuses bad options, naming the variables they mirror', async () => {
    const refused = await createAgentHost({ port: 70_000, host: 'no such host', store: 'memory' }).catch((e) => e);
    expect(refused).toBeInstanceOf(ConfigError);
    expect(refused.problems).toStrictEqual([
      'PORT: must be 0-65535',
      'HOST: must be an IP address (such as 127.0.0.1, 0.0.0.0 or ::) or a host name',
    ]);
  });

  test('the default store is agenthost.sqlite in AGENTHOST_HOME, else in ~/.agenthost', () => {
    expect(loadConfig({ AGENTHOST_HOME: dir }).store).toBe(`sqlite://${join(dir, 'agenthost.sqlite')}`);
    expect(loadConfig({ HOME: dir }).store).toBe(`sqlite://${join(dir, '.agenthost', 'agenthost.sqlite')}`);
    expect(loadConfig({ HOME: dir, AGENTHOST_STORE: 'memory' }).store).toBe('memory');
  });
});

describe('unknown AGENTHOST_ variables', () => {
  test('each is named with the nearest known variable; known ones and other prefixes are not', () => {
    expect(
      unknownVariableWarnings({
        AGENTHOST_STORE: 'memory',
        AGENTHOST_RATELIMIT: '5',
        AGENTHOST_HOEM: '/srv',
        OPENAI_MODEL: 'x',
        PATH: '/bin',
      }),
    ).toStrictEqual([
      'AGENTHOST_HOEM is not an agenthost setting and is ignored (did you mean AGENTHOST_HOME?)',
      'AGENTHOST_RATELIMIT is not an agenthost setting and is ignored (did you mean AGENTHOST_RATE_LIMIT?)',
    ]);
  });
});
