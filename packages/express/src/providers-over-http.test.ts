import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AgentService, staticModels, staticTools } from '@agenthost/core';
import {
  type FakeProviderRequest,
  type FakeProviderServer,
  type FakeReply,
  sequentialIds,
  startFakeAnthropicServer,
  startFakeGeminiServer,
  startFakeOpenAIServer,
} from '@agenthost/core/test';
import { MemoryStore } from '@agenthost/storage';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import express from 'express';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { addTool } from './add-tool-fixture.js';
import { staticKeys } from './auth.js';
import { createAgentRouter } from './router.js';

// The real @ai-sdk/anthropic, @ai-sdk/google and @ai-sdk/openai-compatible providers behind the HTTP
// API, each against a loopback fake of its own wire protocol: what each provider sent, and what the
// API answered with what it got back.
const KEY = 'key-providers-0123456789abcdef';
const ANTHROPIC_KEY = 'anthropic-key-0123456789';
const GEMINI_KEY = 'gemini-key-0123456789';
const INSTRUCTION = 'Be brief.';

type Fakes = Record<'anthropic' | 'gemini' | 'compat', FakeProviderServer>;

interface ProviderCase {
  name: string;
  /** The model name agents use. */
  model: string;
  fake: keyof Fakes;
  /** What the provider sent about itself: path (plain and streamed), model id, and the header with the key. */
  sent: { path: string; streamPath: string; model: string; keyHeader: string; key: string | undefined };
  /** The id the provider gives the fake's first tool call. */
  toolCallId: string;
  /** A failure of the provider's own kind, and how the API answers it. */
  failure: {
    what: string;
    reply: FakeReply;
    status: number;
    error: string;
    code: string;
    retryAfter: string | null;
    logged: Record<string, unknown>;
  };
}

const RATE_LIMITED = 'The model provider is rate limiting this server; retry later';
const FAILED = 'The model provider failed to answer';

const PROVIDERS: ProviderCase[] = [
  {
    name: 'Anthropic Messages (@ai-sdk/anthropic)',
    model: 'claude-sonnet-4-5',
    fake: 'anthropic',
    sent: {
      path: '/v1/messages',
      streamPath: '/v1/messages',
      model: 'claude-sonnet-4-5',
      keyHeader: 'x-api-key',
      key: ANTHROPIC_KEY,
    },
    toolCallId: 'toolu_1',
    failure: {
      what: '529 overloaded',
      reply: { status: 529, body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } },
      status: 502,
      error: FAILED,
      code: 'provider_error',
      retryAfter: null,
      logged: { name: 'anthropic.messages', status: 529, code: 'overloaded_error', message: 'Overloaded' },
    },
  },
  {
    name: 'Gemini (@ai-sdk/google)',
    model: 'gemini-2.5-flash',
    fake: 'gemini',
    sent: {
      path: '/v1beta/models/gemini-2.5-flash:generateContent',
      streamPath: '/v1beta/models/gemini-2.5-flash:streamGenerateContent',
      model: 'gemini-2.5-flash',
      keyHeader: 'x-goog-api-key',
      key: GEMINI_KEY,
    },
    toolCallId: 'fc_1',
    failure: {
      what: '429 resource exhausted',
      // Gemini sends no Retry-After header: the API advises its default.
      reply: {
        status: 429,
        body: { error: { code: 429, message: 'Resource exhausted', status: 'RESOURCE_EXHAUSTED' } },
      },
      status: 503,
      error: RATE_LIMITED,
      code: 'provider_rate_limited',
      retryAfter: '5',
      logged: { name: 'google.generative-ai', status: 429, code: 'RESOURCE_EXHAUSTED', message: 'Resource exhausted' },
    },
  },
  {
    name: 'an OpenAI-compatible endpoint (@ai-sdk/openai-compatible, as for Ollama)',
    model: 'compat-model',
    fake: 'compat',
    // No key configured, so none is sent.
    sent: {
      path: '/v1/chat/completions',
      streamPath: '/v1/chat/completions',
      model: 'llama3.2',
      keyHeader: 'authorization',
      key: undefined,
    },
    toolCallId: 'call_1',
    failure: {
      what: '429 with Retry-After',
      reply: {
        status: 429,
        body: { error: { message: 'Rate limit reached', type: 'requests' } },
        headers: { 'retry-after': '12' },
      },
      status: 503,
      error: RATE_LIMITED,
      code: 'provider_rate_limited',
      retryAfter: '12',
      logged: { name: 'ollama.chat', status: 429, code: 'requests', message: 'Rate limit reached' },
    },
  },
];

let fakes: Fakes;
let store: MemoryStore;
let server: Server;
let base: string;
let logged: { message: string; fields: Record<string, unknown> }[];

beforeEach(async () => {
  fakes = {
    anthropic: await startFakeAnthropicServer(),
    gemini: await startFakeGeminiServer(),
    compat: await startFakeOpenAIServer(),
  };
  store = new MemoryStore();
  logged = [];
  const models = staticModels({
    'claude-sonnet-4-5': createAnthropic({ apiKey: ANTHROPIC_KEY, baseURL: fakes.anthropic.baseURL })(
      'claude-sonnet-4-5',
    ),
    'gemini-2.5-flash': createGoogleGenerativeAI({ apiKey: GEMINI_KEY, baseURL: fakes.gemini.baseURL })(
      'gemini-2.5-flash',
    ),
    'compat-model': createOpenAICompatible({ name: 'ollama', baseURL: fakes.compat.baseURL, includeUsage: true })(
      'llama3.2',
    ),
  });
  const tools = staticTools({
    calculator: {
      add: addTool(),
    },
  });
  const service = new AgentService({ store, models, tools, generateId: sequentialIds(), maxRetries: 0 });
  const app = express();
  app.use(
    '/api/v1',
    createAgentRouter(service, {
      resolveKey: staticKeys([{ account: 'acme', key: KEY }]),
      logger: { error: (fields, message) => logged.push({ fields, message }) },
    }),
  );
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
});

afterEach(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await Promise.all(Object.values(fakes).map((fake) => fake.close()));
});

const post = (path: string, body: unknown) =>
  fetch(base + path, {
    method: 'POST',
    headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

async function call(path: string, body: unknown) {
  const res = await post(path, body);
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as unknown };
}

/** Reads a server-sent event stream to its end. */
async function events(res: Response): Promise<{ event: string; data: unknown }[]> {
  return (await res.text())
    .split('\n\n')
    .filter((block) => block.startsWith('id:'))
    .map((block) => {
      const [, eventLine, dataLine] = block.split('\n');
      return {
        event: eventLine!.slice('event: '.length),
        data: JSON.parse(dataLine!.slice('data: '.length)) as unknown,
      };
    });
}

const createAgent = async (model: string, extra: Record<string, unknown> = {}) =>
  (
    (await (await post('/agents', { name: 'A', instruction: INSTRUCTION, model, ...extra })).json()) as {
      data: { agent_id: string };
    }
  ).data.agent_id;

const stored = async (agentId: string, sessionId: string) =>
  (await store.readMessages({ accountId: 'acme', agentId, sessionId })).map((m) => [m.role, m.content]);

const result = (
  model: string,
  output: string,
  session: string,
  tokens: [number, number],
  toolUsed: string | null = null,
) => ({
  output,
  session_id: session,
  status: 'completed',
  pending_approvals: [],
  metadata: {
    model,
    agent_version: 1,
    tool_used: toolUsed,
    tools_used: toolUsed === null ? [] : [toolUsed],
    tokens: { prompt: tokens[0], completion: tokens[1], total: tokens[0] + tokens[1] },
    omitted_messages: 0,
  },
});

/** The tool round trip: the model asks for `add(2, 3)`, then answers with what the tool returned. */
const addThenAnswer = (request: FakeProviderRequest): FakeReply => {
  const last = request.messages.at(-1)!;
  return last.role === 'tool'
    ? {
        text: `The sum is ${last.content}.`,
        chunks: ['The sum ', `is ${last.content}.`],
        usage: { input: 30, output: 5 },
      }
    : { toolCalls: [{ name: 'add', arguments: { a: 2, b: 3 } }], usage: { input: 20, output: 8 } };
};

/** The fake of one provider, and what it read from a request next to what the provider should have sent. */
function providerHelpers(provider: ProviderCase) {
  const fake = () => fakes[provider.fake];
  /** What the provider sent in one request, as the fake read it. */
  const sent = (r: FakeProviderRequest) => ({
    path: r.path,
    model: r.model,
    stream: r.stream,
    key: r.headers[provider.sent.keyHeader],
    tools: r.tools,
    messages: r.messages,
  });
  const expected = (stream: boolean, messages: { role: string; content: string }[], tools: string[] = []) => ({
    path: stream ? provider.sent.streamPath : provider.sent.path,
    model: provider.sent.model,
    stream,
    key: provider.sent.key,
    tools,
    messages: [{ role: 'system', content: INSTRUCTION }, ...messages],
  });
  return { fake, sent, expected };
}

describe.each(PROVIDERS)('$name through HTTP: plain and streamed runs', (provider) => {
  const { fake, sent, expected } = providerHelpers(provider);

  test('a plain run, then a second in its session: the provider gets the instruction, the first turn and the input; output and tokens come back', async () => {
    const id = await createAgent(provider.model);
    const first = await call(`/agents/${id}/run`, { input: 'What is agenthost?' });
    const second = await call(`/agents/${id}/run`, { input: 'And how do I run it?', session_id: 'session_1' });

    // The fake counts words plus one per message: (1+2) + (1+3) = 7 in, 5 out; then 7 + (1+5) + (1+6) = 20 in, 8 out.
    expect(first).toStrictEqual({
      status: 200,
      retryAfter: null,
      body: {
        success: true,
        data: result(provider.model, 'Reply to: What is agenthost?', 'session_1', [7, 5]),
        status: 200,
      },
    });
    expect(second).toStrictEqual({
      status: 200,
      retryAfter: null,
      body: {
        success: true,
        data: result(provider.model, 'Reply to: And how do I run it?', 'session_1', [20, 8]),
        status: 200,
      },
    });
    expect(fake().requests.map(sent)).toStrictEqual([
      expected(false, [{ role: 'user', content: 'What is agenthost?' }]),
      expected(false, [
        { role: 'user', content: 'What is agenthost?' },
        { role: 'assistant', content: 'Reply to: What is agenthost?' },
        { role: 'user', content: 'And how do I run it?' },
      ]),
    ]);
    expect(await stored(id, 'session_1')).toStrictEqual([
      ['user', 'What is agenthost?'],
      ['assistant', 'Reply to: What is agenthost?'],
      ['user', 'And how do I run it?'],
      ['assistant', 'Reply to: And how do I run it?'],
    ]);
  });

  test('a streamed run: text deltas as the provider sent them, then done with the result; the turn is stored', async () => {
    fake().reply(() => ({ text: 'one two three', chunks: ['one ', 'two ', 'three'], usage: { input: 7, output: 3 } }));
    const id = await createAgent(provider.model);
    const res = await post(`/agents/${id}/run`, { input: 'count', session_id: 's', stream: true });

    expect([res.status, res.headers.get('content-type')]).toStrictEqual([200, 'text/event-stream; charset=utf-8']);
    expect(await events(res)).toStrictEqual([
      { event: 'text-delta', data: { delta: 'one ' } },
      { event: 'text-delta', data: { delta: 'two ' } },
      { event: 'text-delta', data: { delta: 'three' } },
      { event: 'done', data: result(provider.model, 'one two three', 's', [7, 3]) },
    ]);
    expect(fake().requests.map(sent)).toStrictEqual([expected(true, [{ role: 'user', content: 'count' }])]);
    expect(await stored(id, 's')).toStrictEqual([
      ['user', 'count'],
      ['assistant', 'one two three'],
    ]);
  });
});

describe.each(PROVIDERS)('$name through HTTP: tool calls', (provider) => {
  const { fake, sent, expected } = providerHelpers(provider);

  test('a tool call: the provider asks for the tool, gets its result in the next request, and answers', async () => {
    fake().reply(addThenAnswer);
    const id = await createAgent(provider.model, { tool: 'calculator' });
    const res = await call(`/agents/${id}/run`, { input: 'add 2 and 3', session_id: 's' });

    expect(res).toStrictEqual({
      status: 200,
      retryAfter: null,
      body: { success: true, data: result(provider.model, 'The sum is 5.', 's', [50, 13], 'calculator'), status: 200 },
    });
    const asked = [{ role: 'user', content: 'add 2 and 3' }];
    expect(fake().requests.map(sent)).toStrictEqual([
      expected(false, asked, ['add']),
      expected(
        false,
        [...asked, { role: 'assistant', content: 'call add({"a":2,"b":3})' }, { role: 'tool', content: '5' }],
        ['add'],
      ),
    ]);
    expect(await stored(id, 's')).toStrictEqual([
      ['user', 'add 2 and 3'],
      ['assistant', 'The sum is 5.'],
    ]);
  });

  test('a streamed tool call: tool-call and tool-result events, the answer in deltas, then done', async () => {
    fake().reply(addThenAnswer);
    const id = await createAgent(provider.model, { tool: 'calculator' });
    const res = await post(`/agents/${id}/run`, { input: 'add 2 and 3', session_id: 's', stream: true });

    expect(await events(res)).toStrictEqual([
      { event: 'tool-call', data: { tool_call_id: provider.toolCallId, tool_name: 'add', input: { a: 2, b: 3 } } },
      { event: 'tool-result', data: { tool_call_id: provider.toolCallId, tool_name: 'add', output: 5 } },
      { event: 'text-delta', data: { delta: 'The sum ' } },
      { event: 'text-delta', data: { delta: 'is 5.' } },
      { event: 'done', data: result(provider.model, 'The sum is 5.', 's', [50, 13], 'calculator') },
    ]);
    const asked = [{ role: 'user', content: 'add 2 and 3' }];
    expect(fake().requests.map(sent)).toStrictEqual([
      expected(true, asked, ['add']),
      expected(
        true,
        [...asked, { role: 'assistant', content: 'call add({"a":2,"b":3})' }, { role: 'tool', content: '5' }],
        ['add'],
      ),
    ]);
    expect(await stored(id, 's')).toStrictEqual([
      ['user', 'add 2 and 3'],
      ['assistant', 'The sum is 5.'],
    ]);
  });
});

describe.each(PROVIDERS)('$name through HTTP: provider failures', (provider) => {
  const { fake } = providerHelpers(provider);

  test(`a provider ${provider.failure.what} is the envelope with status ${provider.failure.status}, plain and streamed; the session is as it was`, async () => {
    const id = await createAgent(provider.model);
    await call(`/agents/${id}/run`, { input: 'hello', session_id: 's' });
    fake().reply(() => provider.failure.reply);
    const envelope = {
      success: false,
      error: provider.failure.error,
      code: provider.failure.code,
      status: provider.failure.status,
    };

    expect(await call(`/agents/${id}/run`, { input: 'again', session_id: 's' })).toStrictEqual({
      status: provider.failure.status,
      retryAfter: provider.failure.retryAfter,
      body: envelope,
    });
    const streamed = await post(`/agents/${id}/run`, { input: 'again', session_id: 's', stream: true });
    expect([streamed.status, await events(streamed)]).toStrictEqual([200, [{ event: 'error', data: envelope }]]);
    expect(await stored(id, 's')).toStrictEqual([
      ['user', 'hello'],
      ['assistant', 'Reply to: hello'],
    ]);
    // Each failure logged once, with what the provider said of itself and nothing of the prompt.
    const line = { ...provider.failure.logged, host: new URL(fake().baseURL).host };
    expect(
      logged.map((l) => [l.message, l.fields.status, (l.fields.err as { provider?: unknown }).provider]),
    ).toStrictEqual([
      [provider.failure.error, provider.failure.status, line],
      [provider.failure.error, provider.failure.status, line],
    ]);
    expect(fake().requests.map((r) => [r.stream, r.messages.at(-1)?.content])).toStrictEqual([
      [false, 'hello'],
      [false, 'again'],
      [true, 'again'],
    ]);
  });
});
