import { MemoryStore } from '@agenthost/storage';
import { tool } from 'ai';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { z } from 'zod';
import { AgentService } from '../agent-service.js';
import { AgentHostError } from '../errors/agenthost-error.js';
import type { RunResult } from '../records.js';
import { type FakeOpenAIServer, startFakeOpenAIServer } from '../testing/fake-openai-server.js';
import { sequentialIds } from '../testing/test-clock.js';
import { staticTools } from '../tools/static-tools.js';
import { catalogEntry, catalogModels } from './catalog.js';

/** A run's cost at the catalog's list price of gpt-4o-mini. */
function costOf(prompt: number, completion: number): number {
  const { price } = catalogEntry('openai', 'gpt-4o-mini')!;
  return Math.round(((prompt * price!.input_per_mtok + completion * price!.output_per_mtok) / 1e6) * 1e9) / 1e9;
}

import { openAIModels } from './openai-models.js';

const instruction = 'You are a terse assistant.';
let fake: FakeOpenAIServer;
let store: MemoryStore;

beforeEach(async () => {
  fake = await startFakeOpenAIServer();
  store = new MemoryStore();
});
afterEach(() => fake.close());

const APIS = [
  { api: 'responses' as const, path: '/v1/responses', system: 'system' },
  { api: 'chat' as const, path: '/v1/chat/completions', system: 'system' },
];

/** A service over the fake, through the real provider package on `api`. */
function serviceOver(api: 'responses' | 'chat', maxRetries = 0) {
  const models = openAIModels({ apiKey: 'sk-test-123', baseURL: fake.baseURL, api, models: ['gpt-4o-mini'] });
  return new AgentService({ store, models, generateId: sequentialIds(), maxRetries });
}

describe.each(APIS)('the real @ai-sdk/openai provider over the $api API', ({ api, path, system }) => {
  const service = (maxRetries = 0) => serviceOver(api, maxRetries);

  test('sends the instruction, the earlier turns in order and the input; parses output and usage', async () => {
    const svc = service();
    const { agent_id } = await svc.createAgent('acme', { name: 'Terse', instruction, model: 'gpt-4o-mini' });
    const first = await svc.runAgent('acme', agent_id, { input: 'What is agenthost?' });
    const second = await svc.runAgent('acme', agent_id, {
      input: 'And how do I run it?',
      session_id: first.session_id,
    });

    expect(first).toStrictEqual({
      output: 'Reply to: What is agenthost?',
      session_id: 'session_1',
      status: 'completed',
      pending_approvals: [],
      // The fake counts words plus one per message: (1+5) + (1+3) = 10 in, 5 out.
      metadata: {
        model: 'gpt-4o-mini',
        agent_version: 1,
        tool_used: null,
        tools_used: [],
        tokens: { prompt: 10, completion: 5, total: 15 },
        omitted_messages: 0,
        cost: costOf(10, 5),
      },
    });
    expect(second).toStrictEqual({
      output: 'Reply to: And how do I run it?',
      session_id: 'session_1',
      status: 'completed',
      pending_approvals: [],
      // (1+5) + (1+3) + (1+5) + (1+6) = 23 in, 8 out.
      metadata: {
        model: 'gpt-4o-mini',
        agent_version: 1,
        tool_used: null,
        tools_used: [],
        tokens: { prompt: 23, completion: 8, total: 31 },
        omitted_messages: 0,
        cost: costOf(23, 8),
      },
    });

    expect(fake.requests).toHaveLength(2);
    const sent = fake.requests[1]!;
    expect([sent.api, sent.method, sent.path, sent.model, sent.headers.authorization]).toStrictEqual([
      api,
      'POST',
      path,
      'gpt-4o-mini',
      'Bearer sk-test-123',
    ]);
    expect(sent.messages).toStrictEqual([
      { role: system, content: instruction },
      { role: 'user', content: 'What is agenthost?' },
      { role: 'assistant', content: 'Reply to: What is agenthost?' },
      { role: 'user', content: 'And how do I run it?' },
    ]);
    expect(await store.readMessages({ accountId: 'acme', agentId: agent_id, sessionId: 'session_1' })).toMatchObject([
      { role: 'user', content: 'What is agenthost?' },
      { role: 'assistant', content: 'Reply to: What is agenthost?' },
      { role: 'user', content: 'And how do I run it?' },
      { role: 'assistant', content: 'Reply to: And how do I run it?' },
    ]);
  });
});

describe.each(APIS)('provider failures over the $api API', ({ api }) => {
  const service = (maxRetries = 0) => serviceOver(api, maxRetries);

  test('a provider 500 is retried by the AI SDK, then a provider_error; the session is unchanged', async () => {
    const svc = service(1);
    const { agent_id } = await svc.createAgent('acme', { name: 'Terse', instruction, model: 'gpt-4o-mini' });
    await svc.runAgent('acme', agent_id, { input: 'one', session_id: 's' });
    fake.reply(() => ({ status: 500, body: { error: { message: 'The server had an error', type: 'server_error' } } }));
    const error = await svc.runAgent('acme', agent_id, { input: 'two', session_id: 's' }).catch((e: unknown) => e);
    expect(AgentHostError.isInstance(error) && [error.code, error.message]).toStrictEqual([
      'provider_error',
      'The model provider failed to answer',
    ]);
    expect(fake.requests.map((r) => r.messages.at(-1)?.content)).toStrictEqual(['one', 'two', 'two']);
    expect(
      (await store.readMessages({ accountId: 'acme', agentId: agent_id, sessionId: 's' })).map((m) => m.content),
    ).toStrictEqual(['one', 'Reply to: one']);
  });

  test('an answer that is not the API shape is a provider_error; nothing is stored', async () => {
    const svc = service();
    const { agent_id } = await svc.createAgent('acme', { name: 'Terse', instruction, model: 'gpt-4o-mini' });
    fake.reply(() => ({ status: 200, body: { unexpected: true } }));
    const error = await svc.runAgent('acme', agent_id, { input: 'hi', session_id: 's' }).catch((e: unknown) => e);
    expect(AgentHostError.isInstance(error) && error.code).toBe('provider_error');
    expect(await store.readMessages({ accountId: 'acme', agentId: agent_id, sessionId: 's' })).toStrictEqual([]);
  });
});

describe.each(['responses', 'chat'] as const)('streaming and tool calls over the %s API', (api) => {
  const calc = staticTools({
    calculator: {
      add: tool({ inputSchema: z.object({ a: z.number(), b: z.number() }), execute: async ({ a, b }) => a + b }),
    },
  });
  const service = () =>
    new AgentService({
      store,
      models: openAIModels({ apiKey: 'k', baseURL: fake.baseURL, api, models: ['gpt-4o-mini'] }),
      tools: calc,
      maxRetries: 0,
    });

  test('a streamed answer arrives in deltas and is stored whole', async () => {
    fake.reply(() => ({ text: 'one two three', chunks: ['one ', 'two ', 'three'], usage: { input: 7, output: 3 } }));
    const svc = service();
    const { agent_id } = await svc.createAgent('acme', { name: 'S', instruction, model: 'gpt-4o-mini' });
    const events = [];
    for await (const e of await svc.streamAgent('acme', agent_id, { input: 'count', session_id: 's' })) events.push(e);
    expect(events).toStrictEqual([
      { type: 'text-delta', delta: 'one ' },
      { type: 'text-delta', delta: 'two ' },
      { type: 'text-delta', delta: 'three' },
      {
        type: 'done',
        result: {
          output: 'one two three',
          session_id: 's',
          status: 'completed',
          pending_approvals: [],
          metadata: {
            model: 'gpt-4o-mini',
            agent_version: 1,
            tool_used: null,
            tools_used: [],
            tokens: { prompt: 7, completion: 3, total: 10 },
            omitted_messages: 0,
            cost: costOf(7, 3),
          },
        },
      },
    ]);
    expect([fake.requests[0]!.stream, fake.requests[0]!.completed, fake.requests[0]!.aborted]).toStrictEqual([
      true,
      true,
      false,
    ]);
  });

  test.each([false, true])('the model calls a tool and answers with its result (streamed: %s)', async (stream) => {
    fake.reply((r) =>
      r.messages.at(-1)?.role === 'tool'
        ? { text: `It is ${r.messages.at(-1)!.content}.`, usage: { input: 9, output: 3 } }
        : { toolCalls: [{ name: 'add', arguments: { a: 20, b: 22 } }], usage: { input: 8, output: 2 } },
    );
    const svc = service();
    const { agent_id } = await svc.createAgent('acme', {
      name: 'S',
      instruction,
      model: 'gpt-4o-mini',
      tool: 'calculator',
    });
    let result: RunResult | undefined;
    if (stream) {
      for await (const e of await svc.streamAgent('acme', agent_id, { input: 'add them' }))
        if (e.type === 'done') result = e.result;
    } else result = await svc.runAgent('acme', agent_id, { input: 'add them' });
    expect(result).toMatchObject({
      output: 'It is 42.',
      metadata: { tool_used: 'calculator', tokens: { prompt: 17, completion: 5, total: 22 } },
    });
    expect(
      fake.requests.map((r) => [r.stream, r.tools, r.messages.at(-1)?.role, r.messages.at(-1)?.content]),
    ).toStrictEqual([
      [stream, ['add'], 'user', 'add them'],
      [stream, ['add'], 'tool', '42'],
    ]);
  });
});

describe('openAIModels', () => {
  test("offers the catalog's OpenAI chat models by default, by provider/model name or bare id, and only those", () => {
    const models = openAIModels({ apiKey: 'k' });
    expect(models.listModels()).toStrictEqual(catalogModels('openai').map((id) => `openai/${id}`));
    expect(models.listModels()).toContain('openai/gpt-5-mini');
    expect(models.listModels().some((name) => /embedding|tts|whisper|dall-e/.test(name))).toBe(false);
    expect([
      models.languageModel('gpt-4o-mini')?.modelId,
      models.languageModel('openai/gpt-4o-mini')?.modelId,
    ]).toStrictEqual(['gpt-4o-mini', 'gpt-4o-mini']);
    expect([
      models.languageModel('llama3.2'),
      models.languageModel('anthropic/gpt-4o-mini'),
      models.languageModel('openai/'),
    ]).toStrictEqual([undefined, undefined, undefined]);
  });

  test('uses the Responses API for OpenAI and Chat Completions for a compatible server', () => {
    expect(openAIModels({ apiKey: 'k' }).languageModel('gpt-4o')?.provider).toBe('openai.responses');
    expect(
      openAIModels({ apiKey: 'k', baseURL: 'http://127.0.0.1:11434/v1', models: ['llama3.2'] }).languageModel(
        'llama3.2',
      )?.provider,
    ).toBe('openai.chat');
  });
});
