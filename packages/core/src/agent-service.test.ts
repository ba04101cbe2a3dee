import { MemoryStore } from '@agenthost/storage';
import { APICallError, type LanguageModelV4CallOptions, type LanguageModelV4GenerateResult } from '@ai-sdk/provider';
import { tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { beforeEach, describe, expect, test, vi } from 'vitest';
import { z } from 'zod';
import { AgentService, type AgentServiceOptions } from './agent-service.js';
import { staticModels } from './models/static-models.js';
import { agentHostError as rejection } from './testing/rejection.js';
import { sequentialIds, type TestClock, testClock } from './testing/test-clock.js';
import { staticTools } from './tools/static-tools.js';

function reply(text: string, input = 10, output = 4): LanguageModelV4GenerateResult {
  return {
    content: [{ type: 'text', text }],
    finishReason: { unified: 'stop', raw: 'stop' },
    usage: {
      inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: output, text: output, reasoning: 0 },
    },
    warnings: [],
  };
}

const agentInput = { name: 'Support', instruction: 'You are a helpful support agent.', model: 'mock' };
const ACME = 'acme';
const OTHER = 'other';

let store: MemoryStore;
let model: MockLanguageModelV4;
let clock: TestClock;

function makeService(options: Partial<AgentServiceOptions> = {}) {
  return new AgentService({
    store,
    models: staticModels({ mock: model }),
    now: clock,
    generateId: sequentialIds(),
    maxRetries: 0,
    ...options,
  });
}

beforeEach(() => {
  store = new MemoryStore();
  clock = testClock('2026-11-22T10:00:00.000Z');
  let n = 0;
  model = new MockLanguageModelV4({
    doGenerate: async (options: LanguageModelV4CallOptions) => {
      n++;
      const last = options.prompt.at(-1);
      const text = last?.role === 'user' && last.content[0]?.type === 'text' ? last.content[0].text : '?';
      return reply(`reply ${n} to ${text}`, 10 * n, 4);
    },
  });
});

describe('createAgent, getAgent, listAgents', () => {
  test('create returns the whole record, get and list return the same', async () => {
    const service = makeService();
    const created = await service.createAgent(ACME, { ...agentInput, name: '  Support  ' });
    const expected = {
      agent_id: 'agent_1',
      name: 'Support',
      config: {
        agent_id: 'agent_1',
        name: 'Support',
        instruction: agentInput.instruction,
        model: 'mock',
        tool: null,
        tools: [],
        require_approval: [],
        component: 'Chat',
        temperature: null,
        top_p: null,
        max_output_tokens: null,
        fallback_models: [],
        metadata: {},
      },
      metadata: {},
      version: 1,
      created_at: '2026-11-22T10:00:00.000Z',
      updated_at: '2026-11-22T10:00:00.000Z',
    };
    expect(created).toStrictEqual(expected);
    expect(await service.getAgent(ACME, 'agent_1')).toStrictEqual(expected);
    expect(await service.listAgents(ACME)).toStrictEqual([expected]);
  });

  test('accounts are isolated: the same NotFoundError for a foreign and a missing agent', async () => {
    const service = makeService();
    const { agent_id } = await service.createAgent(ACME, agentInput);
    const foreign = await rejection(service.getAgent(OTHER, agent_id));
    const missing = await rejection(service.getAgent(OTHER, 'agent_404'));
    expect({ code: foreign.code, message: foreign.message }).toStrictEqual({
      code: 'not_found',
      message: 'Agent not found',
    });
    expect({ code: missing.code, message: missing.message }).toStrictEqual({
      code: 'not_found',
      message: 'Agent not found',
    });
    expect(await service.listAgents(OTHER)).toStrictEqual([]);
    const run = await rejection(service.runAgent(OTHER, agent_id, { input: 'hi' }));
    expect(run.code).toBe('not_found');
    expect(model.doGenerateCalls).toHaveLength(0);
  });

  test('list is oldest first', async () => {
    const service = makeService();
    for (const name of ['a', 'b', 'c']) {
      await service.createAgent(ACME, { ...agentInput, name });
      clock.advance(1000);
    }
    expect((await service.listAgents(ACME)).map((a) => [a.name, a.created_at])).toStrictEqual([
      ['a', '2026-11-22T10:00:00.000Z'],
      ['b', '2026-11-22T10:00:01.000Z'],
      ['c', '2026-11-22T10:00:02.000Z'],
    ]);
  });
});

describe('createAgent: input checks', () => {
  test('missing fields: one detail per field, nothing stored', async () => {
    const service = makeService();
    const error = await rejection(service.createAgent(ACME, {} as never));
    expect(error.code).toBe('invalid_input');
    expect(error.message).toBe('Invalid request format');
    expect(error.details).toStrictEqual({
      name: { message: 'name is required', path: ['name'] },
      instruction: { message: 'instruction is required', path: ['instruction'] },
      model: { message: 'model is required', path: ['model'] },
    });
    expect(await service.listAgents(ACME)).toStrictEqual([]);
  });

  test.each([
    ['name', 123, 'name must be a string'],
    ['name', '   ', 'name must not be blank'],
    ['instruction', '', 'instruction must not be blank'],
    ['instruction', 'x'.repeat(100_001), 'instruction must be at most 100000 characters'],
    ['name', 'nul\u0000byte', 'name must not contain NUL or unpaired surrogate characters'],
    ['instruction', 'lone \uD800 surrogate', 'instruction must not contain NUL or unpaired surrogate characters'],
    ['tool', ['a'], 'tool must be a string or null'],
    ['component', '', 'component must not be blank'],
  ])('%s = %j is rejected: %s', async (field, value, message) => {
    const error = await rejection(makeService().createAgent(ACME, { ...agentInput, [field]: value }));
    expect(error.details).toStrictEqual({ [field]: { message, path: [field] } });
  });

  test('an input that is not an object is rejected as a whole', async () => {
    const error = await rejection(makeService().createAgent(ACME, [agentInput] as never));
    expect(error.details).toStrictEqual({
      request: { message: 'Invalid input: expected object, received array', path: [] },
    });
  });

  test('an unsupported model lists the supported ones', async () => {
    const error = await rejection(makeService().createAgent(ACME, { ...agentInput, model: 'gpt-9' }));
    expect(error.details).toStrictEqual({
      model: {
        message: 'Unsupported model "gpt-9". Name a model as provider/model; offered: custom: mock',
        path: ['model'],
      },
    });
  });

  test('an unknown tool lists the supported ones', async () => {
    const service = makeService({ tools: staticTools({ calculator: {}, weather: {} }) });
    const error = await rejection(service.createAgent(ACME, { ...agentInput, tool: 'search' }));
    expect(error.message).toBe('Unknown tool "search". Supported tools: calculator, weather');
    expect(error.details).toStrictEqual({
      tool: { message: 'Unknown tool "search". Supported tools: calculator, weather', path: ['tool'] },
    });
  });

  test.each([undefined, null, 'none', 'None', ''])('tool %j means no tool', async (tool) => {
    const agent = await makeService().createAgent(ACME, { ...agentInput, tool });
    expect(agent.config.tool).toBeNull();
  });

  test('server-owned fields sent by the caller are ignored; component is kept', async () => {
    const agent = await makeService().createAgent(ACME, {
      ...agentInput,
      component: 'Widget',
      agent_id: 'mine',
      created_at: '2000-01-01T00:00:00.000Z',
    } as never);
    expect([agent.agent_id, agent.created_at, agent.config.component]).toStrictEqual([
      'agent_1',
      '2026-11-22T10:00:00.000Z',
      'Widget',
    ]);
  });
});

describe('updateAgent', () => {
  test('changes the given fields; updated_at moves, created_at stays', async () => {
    const service = makeService();
    const created = await service.createAgent(ACME, agentInput);
    clock.advance(1000);
    const updated = await service.updateAgent(ACME, created.agent_id, { name: ' Renamed ', tool: 'none' });
    const expected = {
      ...created,
      name: 'Renamed',
      config: { ...created.config, name: 'Renamed' },
      version: 2,
      updated_at: '2026-11-22T10:00:01.000Z',
    };
    expect(updated).toStrictEqual(expected);
    expect(await service.getAgent(ACME, created.agent_id)).toStrictEqual(expected);
  });

  test('reads the fields themselves, not a nested config: an input of only `config` changes nothing', async () => {
    const service = makeService();
    const created = await service.createAgent(ACME, agentInput);
    const error = await rejection(service.updateAgent(ACME, created.agent_id, { config: { name: 'X' } } as never));
    expect([error.code, error.details]).toStrictEqual([
      'invalid_input',
      {
        request: {
          message:
            'Give at least one of name, instruction, model, tool, tools, require_approval, component, temperature, top_p, max_output_tokens, fallback_models, metadata',
          path: ['request'],
        },
      },
    ]);
    expect(await service.getAgent(ACME, created.agent_id)).toStrictEqual(created);
  });

  test('a model the server does not offer is refused and nothing changes', async () => {
    const service = makeService();
    const created = await service.createAgent(ACME, agentInput);
    const error = await rejection(service.updateAgent(ACME, created.agent_id, { model: 'gpt-9' }));
    expect(Object.keys(error.details ?? {})).toStrictEqual(['model']);
    expect(await service.getAgent(ACME, created.agent_id)).toStrictEqual(created);
  });
});

describe('runAgent', () => {
  test('a first run sends instruction and input, stores the turn, reports usage', async () => {
    const service = makeService();
    const { agent_id } = await service.createAgent(ACME, agentInput);
    clock.advance(5000);
    const result = await service.runAgent(ACME, agent_id, { input: 'Hello' });
    expect(result).toStrictEqual({
      output: 'reply 1 to Hello',
      session_id: 'session_1',
      status: 'completed',
      pending_approvals: [],
      metadata: {
        model: 'mock',
        agent_version: 1,
        tool_used: null,
        tools_used: [],
        tokens: { prompt: 10, completion: 4, total: 14 },
        omitted_messages: 0,
      },
    });
    expect(model.doGenerateCalls[0]!.prompt).toStrictEqual([
      { role: 'system', content: agentInput.instruction },
      { role: 'user', content: [{ type: 'text', text: 'Hello' }], providerOptions: undefined },
    ]);
    expect(await store.readMessages({ accountId: ACME, agentId: agent_id, sessionId: 'session_1' })).toStrictEqual([
      { role: 'user', content: 'Hello', created_at: '2026-11-22T10:00:05.000Z' },
      { role: 'assistant', content: 'reply 1 to Hello', created_at: '2026-11-22T10:00:05.000Z' },
    ]);
  });

  test('a session_id continues the conversation: earlier turns in order, then the input', async () => {
    const service = makeService();
    const { agent_id } = await service.createAgent(ACME, agentInput);
    const first = await service.runAgent(ACME, agent_id, { input: 'one' });
    await service.runAgent(ACME, agent_id, { input: 'two', session_id: first.session_id });
    const third = await service.runAgent(ACME, agent_id, { input: 'three', session_id: first.session_id });
    expect(third.session_id).toBe(first.session_id);
    expect(
      model.doGenerateCalls[2]!.prompt.map((m) => [
        m.role,
        m.role === 'system' ? m.content : (m.content[0] as { text: string }).text,
      ]),
    ).toStrictEqual([
      ['system', agentInput.instruction],
      ['user', 'one'],
      ['assistant', 'reply 1 to one'],
      ['user', 'two'],
      ['assistant', 'reply 2 to two'],
      ['user', 'three'],
    ]);
  });

  test('sessions are scoped to (account, agent); a client-chosen id starts a new conversation', async () => {
    const service = makeService();
    const a = await service.createAgent(ACME, agentInput);
    const b = await service.createAgent(ACME, agentInput);
    const c = await service.createAgent(OTHER, agentInput);
    await service.runAgent(ACME, a.agent_id, { input: 'secret', session_id: 'chat:42' });
    for (const [account, agent] of [
      [ACME, b.agent_id],
      [OTHER, c.agent_id],
    ] as const) {
      const before = model.doGenerateCalls.length;
      const r = await service.runAgent(account, agent, { input: 'hi', session_id: 'chat:42' });
      expect(r.session_id).toBe('chat:42');
      expect(model.doGenerateCalls[before]!.prompt).toHaveLength(2);
    }
  });
});

describe('runAgent: session ids', () => {
  test('a null session_id starts a new session', async () => {
    const service = makeService();
    const { agent_id } = await service.createAgent(ACME, agentInput);
    expect((await service.runAgent(ACME, agent_id, { input: 'x', session_id: null })).session_id).toBe('session_1');
  });

  test.each([
    [{}, { input: { message: 'input is required', path: ['input'] } }],
    [{ input: '  ' }, { input: { message: 'input must not be blank', path: ['input'] } }],
    [
      { input: 42 },
      { input: { message: 'input must be a string or a list of parts (text, image, file)', path: ['input'] } },
    ],
    [{ input: 'hi', session_id: 7 }, { session_id: { message: 'session_id must be a string', path: ['session_id'] } }],
    [
      { input: 'hi', session_id: 'a/b' },
      {
        session_id: {
          message: 'session_id must be 1 to 128 characters of letters, digits, ".", "_", ":" or "-"',
          path: ['session_id'],
        },
      },
    ],
    [
      { input: 'hi', session_id: 'x'.repeat(129) },
      {
        session_id: {
          message: 'session_id must be 1 to 128 characters of letters, digits, ".", "_", ":" or "-"',
          path: ['session_id'],
        },
      },
    ],
  ])('bad run input %j is rejected without calling the model', async (input, details) => {
    const service = makeService();
    const { agent_id } = await service.createAgent(ACME, agentInput);
    const error = await rejection(service.runAgent(ACME, agent_id, input as never));
    expect([error.code, error.details]).toStrictEqual(['invalid_input', details]);
    expect(model.doGenerateCalls).toHaveLength(0);
  });
});

describe('runAgent: failures', () => {
  test('a failed model call is a provider_error and leaves the session as it was', async () => {
    const service = makeService();
    const { agent_id } = await service.createAgent(ACME, agentInput);
    const { session_id } = await service.runAgent(ACME, agent_id, { input: 'one' });
    const cause = new APICallError({
      message: 'upstream 500',
      url: 'http://x',
      requestBodyValues: {},
      statusCode: 500,
      isRetryable: false,
    });
    model.doGenerate = async () => {
      throw cause;
    };
    const error = await rejection(service.runAgent(ACME, agent_id, { input: 'two', session_id }));
    expect([error.code, error.message, error.cause]).toStrictEqual([
      'provider_error',
      'The model provider failed to answer',
      cause,
    ]);
    expect(
      (await store.readMessages({ accountId: ACME, agentId: agent_id, sessionId: session_id })).map((m) => m.content),
    ).toStrictEqual(['one', 'reply 1 to one']);
  });

  test('a provider that does not answer in time is a provider_timeout; nothing is stored', async () => {
    const service = makeService({ providerTimeoutMs: 50 });
    const { agent_id } = await service.createAgent(ACME, agentInput);
    model.doGenerate = (options) =>
      new Promise((_, reject) =>
        options.abortSignal?.addEventListener('abort', () => reject(options.abortSignal?.reason), { once: true }),
      );
    const error = await rejection(service.runAgent(ACME, agent_id, { input: 'hello', session_id: 's1' }));
    expect([error.code, error.message]).toStrictEqual([
      'provider_timeout',
      'The model provider did not answer in time',
    ]);
    expect(await store.readMessages({ accountId: ACME, agentId: agent_id, sessionId: 's1' })).toStrictEqual([]);
  });

  test("the caller's abort stops the run with the caller's reason; nothing is stored", async () => {
    const service = makeService();
    const { agent_id } = await service.createAgent(ACME, agentInput);
    const controller = new AbortController();
    model.doGenerate = (options) => {
      setTimeout(() => controller.abort(new Error('client left')), 10);
      return new Promise((_, reject) =>
        options.abortSignal?.addEventListener('abort', () => reject(options.abortSignal?.reason), { once: true }),
      );
    };
    await expect(
      service.runAgent(ACME, agent_id, { input: 'hello', session_id: 's1' }, { signal: controller.signal }),
    ).rejects.toThrow('client left');
    expect(await store.readMessages({ accountId: ACME, agentId: agent_id, sessionId: 's1' })).toStrictEqual([]);
  });
});

describe('runAgent: history, tools and models', () => {
  test('historyLimit sends only the newest whole turns', async () => {
    const service = makeService({ historyLimit: 5 });
    const { agent_id } = await service.createAgent(ACME, agentInput);
    for (let i = 1; i <= 4; i++) await service.runAgent(ACME, agent_id, { input: `q${i}`, session_id: 's' });
    await service.runAgent(ACME, agent_id, { input: 'q5', session_id: 's' });
    const prompt = model.doGenerateCalls[4]!.prompt;
    expect(prompt.map((m) => m.role)).toStrictEqual(['system', 'user', 'assistant', 'user', 'assistant', 'user']);
    expect((prompt[1]!.content[0] as { text: string }).text).toBe('q3');
  });

  test('a tool the model calls runs, is reported in tool_used, and usage sums every step', async () => {
    const calls: unknown[] = [];
    const tools = staticTools({
      calculator: {
        add: tool({
          description: 'Adds two numbers',
          inputSchema: z.object({ a: z.number(), b: z.number() }),
          execute: async ({ a, b }) => {
            calls.push([a, b]);
            return a + b;
          },
        }),
      },
    });
    const steps: LanguageModelV4GenerateResult[] = [
      {
        ...reply('', 20, 5),
        content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'add', input: '{"a":2,"b":3}' }],
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
      },
      reply('2 + 3 = 5', 30, 6),
    ];
    model = new MockLanguageModelV4({ doGenerate: steps });
    const service = makeService({ tools });
    const { agent_id } = await service.createAgent(ACME, { ...agentInput, tool: 'calculator' });
    const result = await service.runAgent(ACME, agent_id, { input: 'What is 2 + 3?', session_id: 's' });
    expect(result).toStrictEqual({
      output: '2 + 3 = 5',
      session_id: 's',
      status: 'completed',
      pending_approvals: [],
      metadata: {
        model: 'mock',
        agent_version: 1,
        tool_used: 'calculator',
        tools_used: ['calculator'],
        tokens: { prompt: 50, completion: 11, total: 61 },
        omitted_messages: 0,
      },
    });
    expect(calls).toStrictEqual([[2, 3]]);
    expect(model.doGenerateCalls[0]!.tools?.map((t) => t.name)).toStrictEqual(['add']);
    expect(
      (await store.readMessages({ accountId: ACME, agentId: agent_id, sessionId: 's' })).map((m) => m.content),
    ).toStrictEqual(['What is 2 + 3?', '2 + 3 = 5']);
  });

  test('an agent with a tool that it did not call reports tool_used null', async () => {
    const service = makeService({ tools: staticTools({ calculator: {} }) });
    const { agent_id } = await service.createAgent(ACME, { ...agentInput, tool: 'calculator' });
    expect((await service.runAgent(ACME, agent_id, { input: 'hi' })).metadata.tool_used).toBeNull();
  });

  test('a model no longer offered by the server is an input error naming what is offered', async () => {
    const service = makeService();
    const { agent_id } = await service.createAgent(ACME, agentInput);
    const later = new AgentService({ store, models: staticModels({ other: model }) });
    const error = await rejection(later.runAgent(ACME, agent_id, { input: 'hi' }));
    expect([error.code, error.message, error.details]).toStrictEqual([
      'invalid_input',
      'The agent\'s model "mock" is not offered by this server',
      {
        model: {
          message: 'Unsupported model "mock". Name a model as provider/model; offered: custom: other',
          path: ['model'],
        },
      },
    ]);
  });
});

describe('runs of one session take turns', () => {
  function slowModel(ms: number) {
    let n = 0;
    return new MockLanguageModelV4({
      doGenerate: async (options) => {
        const i = ++n;
        await new Promise((resolve) => setTimeout(resolve, ms));
        const last = options.prompt.at(-1);
        return reply(
          `reply ${i} to ${last?.role === 'user' && last.content[0]?.type === 'text' ? last.content[0].text : '?'}`,
        );
      },
    });
  }

  test('a second run waits for the first and sees its turn', async () => {
    model = slowModel(100);
    const service = makeService();
    const { agent_id } = await service.createAgent(ACME, agentInput);
    const [a, b] = await Promise.all([
      service.runAgent(ACME, agent_id, { input: 'first', session_id: 's' }),
      service.runAgent(ACME, agent_id, { input: 'second', session_id: 's' }),
    ]);
    expect([a.output, b.output]).toStrictEqual(['reply 1 to first', 'reply 2 to second']);
    expect(model.doGenerateCalls[1]!.prompt.map((m) => m.role)).toStrictEqual(['system', 'user', 'assistant', 'user']);
    expect(
      (await store.readMessages({ accountId: ACME, agentId: agent_id, sessionId: 's' })).map((m) => m.content),
    ).toStrictEqual(['first', 'reply 1 to first', 'second', 'reply 2 to second']);
  });

  test('a run that waits past runWaitMs is a conflict and stores nothing; other sessions do not wait', async () => {
    model = slowModel(300);
    const service = makeService({ runWaitMs: 50 });
    const { agent_id } = await service.createAgent(ACME, agentInput);
    const first = service.runAgent(ACME, agent_id, { input: 'first', session_id: 's' });
    await new Promise((resolve) => setTimeout(resolve, 10));
    const other = service.runAgent(ACME, agent_id, { input: 'elsewhere', session_id: 't' });
    const error = await rejection(service.runAgent(ACME, agent_id, { input: 'second', session_id: 's' }));
    expect([error.code, error.message]).toStrictEqual([
      'conflict',
      'Another run of this session is still in progress; retry when it has finished',
    ]);
    await Promise.all([first, other]);
    expect(
      (await store.readMessages({ accountId: ACME, agentId: agent_id, sessionId: 's' })).map((m) => m.content),
    ).toStrictEqual(['first', 'reply 1 to first']);
  });

  test('a run whose lease is lost mid-run stores nothing', async () => {
    model = slowModel(100);
    const lost = new AbortController();
    const locks = { acquire: async () => ({ signal: lost.signal, release: async () => {} }) };
    const service = makeService({ locks });
    const { agent_id } = await service.createAgent(ACME, agentInput);
    setTimeout(() => lost.abort(new Error('lease renewal failed')), 20);
    const error = await rejection(service.runAgent(ACME, agent_id, { input: 'hi', session_id: 's' }));
    expect([error.code, error.message]).toStrictEqual([
      'storage_unavailable',
      'Lost the session lock during the run; nothing was stored',
    ]);
    expect(await store.readMessages({ accountId: ACME, agentId: agent_id, sessionId: 's' })).toStrictEqual([]);
  });

  test('an agent id no id could be is not looked up', async () => {
    const service = makeService();
    const spy = vi.spyOn(store, 'getAgent');
    const error = await rejection(service.getAgent(ACME, 'x'.repeat(129)));
    expect([error.code, spy.mock.calls.length]).toStrictEqual(['not_found', 0]);
  });
});

describe('options', () => {
  test.each([
    [{ historyLimit: 0 }, 'AgentService: historyLimit must be a whole number from 1 to 9007199254740991, got 0'],
    [
      { providerTimeoutMs: 1.5 },
      'AgentService: providerTimeoutMs must be a whole number from 1 to 2147483647, got 1.5',
    ],
    [{ runWaitMs: 2 ** 31 }, 'AgentService: runWaitMs must be a whole number from 1 to 2147483647, got 2147483648'],
    [{ maxRetries: -1 }, 'AgentService: maxRetries must be a non-negative integer'],
    [{ store: undefined }, 'AgentService: options.store is required'],
    [
      { backgroundRuns: { eventRetentionMs: 2000, recordRetentionMs: 1000 } },
      'AgentService: backgroundRuns.recordRetentionMs (1000) must not be less than backgroundRuns.eventRetentionMs (2000)',
    ],
  ])('%j is refused at construction', (options, message) => {
    expect(() => makeService(options as never)).toThrow(new TypeError(message));
  });

  test('an empty account id is a programming error', async () => {
    await expect(makeService().listAgents('')).rejects.toThrow(
      new TypeError('AgentService: accountId must be a non-empty string'),
    );
  });
});
