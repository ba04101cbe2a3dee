import { catalogEntry, estimatedCost } from '@agenthost/core';
import {
  type FakeProviderServer,
  startFakeAnthropicServer,
  startFakeGeminiServer,
  startFakeOpenAIServer,
} from '@agenthost/core/test';
import { afterAll, afterEach, beforeAll, expect, test } from 'vitest';
import { api, killAll, startServer } from './test-process.js';

// The standalone server as shipped, with each kind of provider switched on by its usual variables and
// pointed at a local fake of its wire protocol.
afterEach(killAll);
const KEY = 'key-providers-0123456789abcdef';
let anthropic: FakeProviderServer;
let gemini: FakeProviderServer;
let ollama: FakeProviderServer;

beforeAll(async () => {
  [anthropic, gemini, ollama] = await Promise.all([
    startFakeAnthropicServer(),
    startFakeGeminiServer(),
    startFakeOpenAIServer(),
  ]);
});
afterAll(() => Promise.all([anthropic.close(), gemini.close(), ollama.close()]));

test('anthropic/, google/ and a named compatible endpoint run end to end from environment variables; GET /models lists them', async () => {
  const server = await startServer({
    AGENTHOST_API_KEYS: `acme:${KEY}`,
    ANTHROPIC_API_KEY: 'sk-ant-test-0123456789',
    ANTHROPIC_BASE_URL: anthropic.baseURL,
    GOOGLE_GENERATIVE_AI_API_KEY: 'AIza-test-0123456789',
    GOOGLE_GENERATIVE_AI_BASE_URL: gemini.baseURL,
    AGENTHOST_PROVIDERS: JSON.stringify({ ollama: { baseURL: ollama.baseURL, models: ['llama3.2'] } }),
  });
  // The banner groups the offered models by provider: a short list by name, a long one by count.
  expect(server.stdout()).toMatch(
    /\n {4}agenthost: echo\n {4}anthropic: \d+ models\n {4}google: \d+ models\n {4}ollama: llama3\.2\n/,
  );

  const models = await api(server.url, KEY, 'GET', '/models');
  const byName = new Map((models.body.data as { name: string }[]).map((m) => [m.name, m]));
  expect([
    byName.get('anthropic/claude-sonnet-4-5'),
    byName.get('google/gemini-2.5-flash'),
    byName.get('ollama/llama3.2'),
  ]).toStrictEqual([
    {
      name: 'anthropic/claude-sonnet-4-5',
      provider: 'anthropic',
      context_window: 200_000,
      price: catalogEntry('anthropic', 'claude-sonnet-4-5')!.price,
      input: ['text'], // at another base URL, text only unless configured
    },
    {
      name: 'google/gemini-2.5-flash',
      provider: 'google',
      context_window: catalogEntry('google', 'gemini-2.5-flash')!.context_window,
      price: catalogEntry('google', 'gemini-2.5-flash')!.price,
      input: ['text'],
    },
    { name: 'ollama/llama3.2', provider: 'ollama', input: ['text'] },
  ]);

  for (const [model, fake] of [
    ['anthropic/claude-sonnet-4-5', anthropic],
    ['google/gemini-2.5-flash', gemini],
    ['ollama/llama3.2', ollama],
  ] as const) {
    const agentId = (await api(server.url, KEY, 'POST', '/agents', { name: 'A', instruction: 'Be brief.', model })).body
      .data.agent_id;
    const first = await api(server.url, KEY, 'POST', `/agents/${agentId}/run`, { input: 'Hello there' });
    const second = await api(server.url, KEY, 'POST', `/agents/${agentId}/run`, {
      input: 'And again',
      session_id: first.body.data.session_id,
    });
    const tokens = second.body.data.metadata.tokens as { prompt: number; completion: number };
    const info = byName.get(model) as {
      name: string;
      provider: string;
      price?: { input_per_mtok: number; output_per_mtok: number };
    };
    const cost = estimatedCost(info, tokens);
    expect(second).toStrictEqual({
      status: 200,
      body: {
        success: true,
        data: {
          output: 'Reply to: And again',
          session_id: first.body.data.session_id,
          status: 'completed',
          pending_approvals: [],
          metadata: {
            model,
            agent_version: 1,
            tool_used: null,
            tools_used: [],
            tokens: second.body.data.metadata.tokens,
            omitted_messages: 0,
            ...(cost !== undefined && { cost }),
          },
        },
        status: 200,
      },
    });
    expect(tokens.prompt).toBeGreaterThan(first.body.data.metadata.tokens.prompt);
    expect(fake.requests.at(-1)!.messages).toStrictEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hello there' },
      { role: 'assistant', content: 'Reply to: Hello there' },
      { role: 'user', content: 'And again' },
    ]);
  }
  expect([
    anthropic.requests[0]!.headers['x-api-key'],
    gemini.requests[0]!.headers['x-goog-api-key'],
    ollama.requests[0]!.headers.authorization,
  ]).toStrictEqual(['sk-ant-test-0123456789', 'AIza-test-0123456789', undefined]);

  const unknown = await api(server.url, KEY, 'POST', '/agents', {
    name: 'A',
    instruction: 'Be brief.',
    model: 'anthropic/claude-9',
  });
  expect([unknown.status, unknown.body.error]).toStrictEqual([400, 'Invalid request format']);
  expect((unknown.body as unknown as { details: { model: { message: string } } }).details.model.message).toMatch(
    /^Unsupported model "anthropic\/claude-9"\. Name a model as provider\/model; offered: agenthost: echo; anthropic: .*claude-sonnet-4-5.*; google: .*gemini-2\.5-flash.*; ollama: llama3\.2$/,
  );
}, 60_000);
