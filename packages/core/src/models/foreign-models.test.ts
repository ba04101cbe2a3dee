import { MemoryStore } from '@agenthost/storage';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import type { LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { convertArrayToReadableStream, MockLanguageModelV3 } from 'ai/test';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { AgentService } from '../agent-service.js';
import { AgentHostError } from '../errors/agenthost-error.js';
import type { ChatModel } from '../ports/model-provider.js';
import type { RunEvent } from '../records.js';
import { startFakeAnthropicServer } from '../testing/fake-anthropic-server.js';
import { startFakeGeminiServer } from '../testing/fake-gemini-server.js';
import type { FakeProviderRequest, FakeProviderServer, FakeReply } from '../testing/fake-provider-server.js';
import { sequentialIds } from '../testing/test-clock.js';
import { staticModels } from './static-models.js';

// Models built by an application with a current provider package, outside agenthost, handed to the
// service as they are: the real provider code runs, against a loopback fake of its wire protocol.
const instruction = 'You are a terse assistant.';
const API_KEY = 'provider-key-0123456789';

interface Case {
  name: string;
  model: string;
  start(): Promise<FakeProviderServer>;
  build(baseURL: string): ChatModel;
  /** Where the model's requests go, plain and streamed. */
  path: { plain: string; stream: string };
  /** The header that carries the key, and what it holds. */
  key: [string, string];
}

const cases: Case[] = [
  {
    name: '@ai-sdk/anthropic (Messages API)',
    model: 'claude-sonnet-4-5',
    start: () => startFakeAnthropicServer(),
    build: (baseURL) => createAnthropic({ apiKey: API_KEY, baseURL })('claude-sonnet-4-5'),
    path: { plain: '/v1/messages', stream: '/v1/messages' },
    key: ['x-api-key', API_KEY],
  },
  {
    name: '@ai-sdk/google (Gemini API)',
    model: 'gemini-2.5-flash',
    start: () => startFakeGeminiServer(),
    build: (baseURL) => createGoogleGenerativeAI({ apiKey: API_KEY, baseURL })('gemini-2.5-flash'),
    path: {
      plain: '/v1beta/models/gemini-2.5-flash:generateContent',
      stream: '/v1beta/models/gemini-2.5-flash:streamGenerateContent',
    },
    key: ['x-goog-api-key', API_KEY],
  },
];

/** A fake of the provider's API and a service over the model built for it, for one test. */
async function serve(provider: Case) {
  const fake = await provider.start();
  const store = new MemoryStore();
  const service = new AgentService({
    store,
    models: staticModels({ [provider.model]: provider.build(fake.baseURL) }),
    generateId: sequentialIds(),
    maxRetries: 0,
  });
  return { fake, store, service };
}
type Served = Awaited<ReturnType<typeof serve>>;

const stored = async (store: MemoryStore, agentId: string, sessionId: string) =>
  (await store.readMessages({ accountId: 'acme', agentId, sessionId })).map((m) => [m.role, m.content]);

/** What the fake received, as the tests compare it. */
const what = (provider: Case) => (r: FakeProviderRequest) => ({
  path: r.path,
  model: r.model,
  stream: r.stream,
  key: r.headers[provider.key[0]],
  messages: r.messages,
  completed: r.completed,
});

describe.each(cases)('a model built with $name, run in-process', (provider) => {
  let t: Served;
  beforeEach(async () => {
    t = await serve(provider);
  });
  afterEach(() => t.fake.close());

  test('two runs in one session: the provider gets the instruction, the first turn and the input; output and tokens come back', async () => {
    const { agent_id } = await t.service.createAgent('acme', { name: 'Terse', instruction, model: provider.model });
    const first = await t.service.runAgent('acme', agent_id, { input: 'What is agenthost?' });
    const second = await t.service.runAgent('acme', agent_id, {
      input: 'And how do I run it?',
      session_id: first.session_id,
    });

    // The fake counts words plus one per message: (1+5) + (1+3) = 10 in, 5 out; then (1+5) + (1+3) + (1+5) + (1+6) = 23 in, 8 out.
    expect([first, second]).toStrictEqual([
      {
        output: 'Reply to: What is agenthost?',
        session_id: 'session_1',
        status: 'completed',
        pending_approvals: [],
        metadata: {
          model: provider.model,
          agent_version: 1,
          tool_used: null,
          tools_used: [],
          tokens: { prompt: 10, completion: 5, total: 15 },
          omitted_messages: 0,
        },
      },
      {
        output: 'Reply to: And how do I run it?',
        session_id: 'session_1',
        status: 'completed',
        pending_approvals: [],
        metadata: {
          model: provider.model,
          agent_version: 1,
          tool_used: null,
          tools_used: [],
          tokens: { prompt: 23, completion: 8, total: 31 },
          omitted_messages: 0,
        },
      },
    ]);
    expect(t.fake.requests.map(what(provider))).toStrictEqual([
      {
        path: provider.path.plain,
        model: provider.model,
        stream: false,
        key: provider.key[1],
        messages: [
          { role: 'system', content: instruction },
          { role: 'user', content: 'What is agenthost?' },
        ],
        completed: true,
      },
      {
        path: provider.path.plain,
        model: provider.model,
        stream: false,
        key: provider.key[1],
        messages: [
          { role: 'system', content: instruction },
          { role: 'user', content: 'What is agenthost?' },
          { role: 'assistant', content: 'Reply to: What is agenthost?' },
          { role: 'user', content: 'And how do I run it?' },
        ],
        completed: true,
      },
    ]);
    expect(await stored(t.store, agent_id, 'session_1')).toStrictEqual([
      ['user', 'What is agenthost?'],
      ['assistant', 'Reply to: What is agenthost?'],
      ['user', 'And how do I run it?'],
      ['assistant', 'Reply to: And how do I run it?'],
    ]);
  });
});

describe.each(cases)('a model built with $name, streamed', (provider) => {
  let t: Served;
  beforeEach(async () => {
    t = await serve(provider);
  });
  afterEach(() => t.fake.close());

  test('a streamed run arrives in deltas, reports the tokens the provider counted, and is stored whole', async () => {
    t.fake.reply(() => ({ text: 'one two three', chunks: ['one ', 'two ', 'three'], usage: { input: 7, output: 3 } }));
    const { agent_id } = await t.service.createAgent('acme', { name: 'Terse', instruction, model: provider.model });
    const events: RunEvent[] = [];
    for await (const event of await t.service.streamAgent('acme', agent_id, { input: 'count', session_id: 's' }))
      events.push(event);

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
            model: provider.model,
            agent_version: 1,
            tool_used: null,
            tools_used: [],
            tokens: { prompt: 7, completion: 3, total: 10 },
            omitted_messages: 0,
          },
        },
      },
    ]);
    expect(t.fake.requests.map(what(provider))).toStrictEqual([
      {
        path: provider.path.stream,
        model: provider.model,
        stream: true,
        key: provider.key[1],
        messages: [
          { role: 'system', content: instruction },
          { role: 'user', content: 'count' },
        ],
        completed: true,
      },
    ]);
    expect(await stored(t.store, agent_id, 's')).toStrictEqual([
      ['user', 'count'],
      ['assistant', 'one two three'],
    ]);
  });
});

describe.each(cases)('a model built with $name, a stream that fails', (provider) => {
  let t: Served;
  beforeEach(async () => {
    t = await serve(provider);
  });
  afterEach(() => t.fake.close());

  test.each<[string, FakeReply]>([
    [
      'a stream the provider cut off before its finish',
      { text: 'one two', usage: { input: 7, output: 2 }, unfinished: true },
    ],
    ['a reset connection', { reset: true }],
  ])('%s is a provider_error after the text so far; nothing is stored', async (_, reply) => {
    t.fake.reply(() => reply);
    const { agent_id } = await t.service.createAgent('acme', { name: 'Terse', instruction, model: provider.model });
    const events: RunEvent[] = [];
    const error = await (async () => {
      for await (const event of await t.service.streamAgent('acme', agent_id, { input: 'count', session_id: 's' }))
        events.push(event);
    })().catch((e: unknown) => e);

    expect(AgentHostError.isInstance(error) && [error.code, error.message]).toStrictEqual([
      'provider_error',
      'The model provider failed to answer',
    ]);
    expect(events).toStrictEqual(
      'text' in reply
        ? [
            { type: 'text-delta', delta: 'one ' },
            { type: 'text-delta', delta: 'two' },
          ]
        : [],
    );
    expect(await stored(t.store, agent_id, 's')).toStrictEqual([]);
  });
});

describe('a model of the previous provider specification (v3), as ai 7 still accepts', () => {
  const usage = {
    inputTokens: { total: 6, noCache: 6, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 2, text: 2, reasoning: undefined },
  };
  const finish = { unified: 'stop' as const, raw: 'stop' };
  const v3 = () =>
    new MockLanguageModelV3({
      doGenerate: async () => ({
        content: [{ type: 'text', text: 'plain v3' }],
        finishReason: finish,
        usage,
        warnings: [],
      }),
      doStream: async () => ({
        stream: convertArrayToReadableStream<LanguageModelV3StreamPart>([
          { type: 'text-start', id: 't' },
          { type: 'text-delta', id: 't', delta: 'streamed ' },
          { type: 'text-delta', id: 't', delta: 'v3' },
          { type: 'text-end', id: 't' },
          { type: 'finish', finishReason: finish, usage },
        ]),
      }),
    });

  test('runs plain and streamed in one session; the model saw the instruction and the earlier turn', async () => {
    const model = v3();
    const store = new MemoryStore();
    const service = new AgentService({ store, models: staticModels({ legacy: model }), generateId: sequentialIds() });
    const { agent_id } = await service.createAgent('acme', { name: 'Old', instruction, model: 'legacy' });
    const metadata = {
      model: 'legacy',
      agent_version: 1,
      tool_used: null,
      tools_used: [],
      tokens: { prompt: 6, completion: 2, total: 8 },
      omitted_messages: 0,
    };

    expect(await service.runAgent('acme', agent_id, { input: 'first', session_id: 's' })).toStrictEqual({
      output: 'plain v3',
      session_id: 's',
      status: 'completed',
      pending_approvals: [],
      metadata,
    });
    const events: RunEvent[] = [];
    for await (const event of await service.streamAgent('acme', agent_id, { input: 'second', session_id: 's' }))
      events.push(event);

    expect(events).toStrictEqual([
      { type: 'text-delta', delta: 'streamed ' },
      { type: 'text-delta', delta: 'v3' },
      {
        type: 'done',
        result: { output: 'streamed v3', session_id: 's', status: 'completed', pending_approvals: [], metadata },
      },
    ]);
    expect(model.doStreamCalls[0]!.prompt.map((m) => [m.role, m.content])).toStrictEqual([
      ['system', instruction],
      ['user', [{ type: 'text', text: 'first' }]],
      ['assistant', [{ type: 'text', text: 'plain v3' }]],
      ['user', [{ type: 'text', text: 'second' }]],
    ]);
    expect(
      (await store.readMessages({ accountId: 'acme', agentId: agent_id, sessionId: 's' })).map((m) => m.content),
    ).toStrictEqual(['first', 'plain v3', 'second', 'streamed v3']);
  });
});
