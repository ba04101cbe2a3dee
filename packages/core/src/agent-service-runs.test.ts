import { MemoryStore } from '@agenthost/storage';
import { APICallError, type LanguageModelV4StreamPart, type LanguageModelV4Usage } from '@ai-sdk/provider';
import { RetryError, tool } from 'ai';
import { convertArrayToReadableStream, MockLanguageModelV4 } from 'ai/test';
import { beforeEach, describe, expect, test } from 'vitest';
import { z } from 'zod';
import { AgentService, type AgentServiceOptions } from './agent-service.js';
import { EchoLanguageModel } from './models/echo-model.js';
import { staticModels } from './models/static-models.js';
import type { RunEvent } from './records.js';
import { agentHostError as rejection } from './testing/rejection.js';
import { sequentialIds, testClock } from './testing/test-clock.js';
import { staticTools } from './tools/static-tools.js';

const ACME = 'acme';
let store: MemoryStore;

function service(options: Partial<AgentServiceOptions> = {}) {
  return new AgentService({
    store,
    models: staticModels({ echo: new EchoLanguageModel() }),
    now: testClock(),
    generateId: sequentialIds(),
    maxRetries: 0,
    ...options,
  });
}

async function collect(events: AsyncIterable<RunEvent>): Promise<RunEvent[]> {
  const out: RunEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}

const usage = (input: number, output: number) => ({
  inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: output, text: output, reasoning: 0 },
});

beforeEach(() => {
  store = new MemoryStore();
});

describe('run input', () => {
  test('input_data is accepted as an alias of input', async () => {
    const svc = service();
    const { agent_id } = await svc.createAgent(ACME, { name: 'A', instruction: 'I', model: 'echo' });
    expect((await svc.runAgent(ACME, agent_id, { input_data: 'legacy client' })).output).toBe('Echo: legacy client');
    const error = await rejection(svc.runAgent(ACME, agent_id, {}));
    expect(error.details).toStrictEqual({ input: { message: 'input is required', path: ['input'] } });
  });

  test('an input over maxInputChars is refused before the model is called', async () => {
    const svc = service({ maxInputChars: 10 });
    const { agent_id } = await svc.createAgent(ACME, { name: 'A', instruction: 'I', model: 'echo' });
    const error = await rejection(svc.runAgent(ACME, agent_id, { input: 'x'.repeat(11), session_id: 's' }));
    expect(error.details).toStrictEqual({ input: { message: 'input must be at most 10 characters', path: ['input'] } });
    expect(await store.getSession({ accountId: ACME, agentId: agent_id, sessionId: 's' })).toBeUndefined();
  });
});

const schema = {
  type: 'object',
  properties: { answer: { type: 'string' }, confidence: { type: 'number', minimum: 0.5 } },
  required: ['answer', 'confidence'],
};

describe('structured output', () => {
  test('json_mode makes the output a JSON text, stored as such', async () => {
    const svc = service();
    const { agent_id } = await svc.createAgent(ACME, { name: 'A', instruction: 'Answer in JSON.', model: 'echo' });
    const result = await svc.runAgent(ACME, agent_id, { input: 'hi', json_mode: true, session_id: 's' });
    expect(JSON.parse(result.output)).toStrictEqual({ echo: 'hi' });
    expect((await store.readMessages({ accountId: ACME, agentId: agent_id, sessionId: 's' }))[1]!.content).toBe(
      result.output,
    );
  });

  test.each([
    ['an object', schema],
    ['its JSON text', JSON.stringify(schema)],
  ])('json_format given as %s constrains the output', async (_, json_format) => {
    const svc = service();
    const { agent_id } = await svc.createAgent(ACME, { name: 'A', instruction: 'I', model: 'echo' });
    const result = await svc.runAgent(ACME, agent_id, { input: 'is it?', json_format });
    expect(JSON.parse(result.output)).toStrictEqual({ answer: 'is it?', confidence: 0.5 });
  });

  test('a schema that asks for more than a run can produce is refused before the model is called', async () => {
    const svc = service();
    const { agent_id } = await svc.createAgent(ACME, { name: 'A', instruction: 'I', model: 'echo' });
    const tooMuch = {
      json_format: {
        message:
          'json_format asks for an answer longer than a run can produce (its smallest valid answer is over 16384 characters: 4 per token of the 4096-token output limit)',
        path: ['json_format'],
      },
    };
    const huge = { type: 'array', items: { type: 'string' }, minItems: 100_000_000 };
    expect((await rejection(svc.runAgent(ACME, agent_id, { input: 'x', json_format: huge }))).details).toStrictEqual(
      tooMuch,
    );
    // 16 items six levels deep: 16^6 values from a schema of some 300 characters.
    let nested: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 6; i++) nested = { type: 'array', minItems: 16, items: nested };
    expect((await rejection(svc.runAgent(ACME, agent_id, { input: 'x', json_format: nested }))).details).toStrictEqual(
      tooMuch,
    );
    const small = await svc.runAgent(ACME, agent_id, { input: 'x', json_format: { ...huge, minItems: 500 } });
    expect(JSON.parse(small.output)).toStrictEqual(Array.from({ length: 500 }, () => 'x'));
  });
});

describe('structured output: answers that do not match', () => {
  test('an answer that does not match json_format is a provider_error, and nothing is stored', async () => {
    const model = new MockLanguageModelV4({
      doGenerate: async () => ({
        content: [{ type: 'text', text: '{"answer": 42}' }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage: usage(5, 5),
        warnings: [],
      }),
    });
    const svc = service({ models: staticModels({ echo: model }) });
    const { agent_id } = await svc.createAgent(ACME, { name: 'A', instruction: 'I', model: 'echo' });
    const error = await rejection(svc.runAgent(ACME, agent_id, { input: 'x', json_format: schema, session_id: 's' }));
    expect(error.code).toBe('provider_error');
    expect(model.doGenerateCalls[0]!.responseFormat).toStrictEqual({ type: 'json', schema });
    expect(await store.getSession({ accountId: ACME, agentId: agent_id, sessionId: 's' })).toBeUndefined();
  });

  test.each([
    ['{ not json', 'json_format is a string that is not JSON'],
    [[1, 2], 'json_format must be a JSON Schema object or its JSON text'],
    ['[1]', 'json_format must be a JSON Schema object'],
    [{ type: 'strin' }, 'json_format is not a valid JSON Schema: type must be JSONType or JSONType[]: strin'],
    [
      { type: 'string', pattern: '^(a+)+$' },
      "json_format is not a JSON Schema this server accepts: data must have required property 'maxLength'",
    ],
    ['x'.repeat(40_000), 'json_format must be at most 32768 characters'],
    [`${'{"not":'.repeat(2000)}{}${'}'.repeat(2000)}`, 'json_format is nested more than 32 levels deep'],
  ])('json_format %j is refused: %s', async (json_format, message) => {
    const svc = service();
    const { agent_id } = await svc.createAgent(ACME, { name: 'A', instruction: 'I', model: 'echo' });
    const error = await rejection(svc.runAgent(ACME, agent_id, { input: 'x', json_format: json_format as never }));
    expect(error.details).toStrictEqual({ json_format: { message, path: ['json_format'] } });
  });
});

describe('context budget', () => {
  test('a 500-turn session keeps every prompt within the budget, leaving out the oldest whole turns', async () => {
    const window = 2_000;
    const svc = service({ contextWindows: { echo: window }, maxOutputTokens: 256 });
    const { agent_id } = await svc.createAgent(ACME, {
      name: 'A',
      instruction: 'You answer questions about accounts.',
      model: 'echo',
    });
    let most = 0;
    for (let i = 0; i < 500; i++) {
      const result = await svc.runAgent(ACME, agent_id, {
        input: `question ${i}: how do I reset the password of account ${i * 7919}?`,
        session_id: 'long',
      });
      most = Math.max(most, result.metadata.tokens.prompt);
      expect(result.metadata.tokens.prompt).toBeLessThanOrEqual(window - 256);
      if (i === 0) expect(result.metadata.omitted_messages).toBe(0);
      if (i === 499) {
        expect(result.metadata.omitted_messages).toBeGreaterThan(900);
        expect(result.metadata.omitted_messages % 2).toBe(0);
      }
    }
    // The budget is used, not just respected.
    expect(most).toBeGreaterThan((window - 256) / 2);
    expect((await store.getSession({ accountId: ACME, agentId: agent_id, sessionId: 'long' }))?.message_count).toBe(
      1000,
    );
  });

  test('an input that alone exceeds the context window is refused', async () => {
    const svc = service({ contextWindows: { echo: 1_000 }, maxOutputTokens: 500 });
    const { agent_id } = await svc.createAgent(ACME, { name: 'A', instruction: 'I', model: 'echo' });
    const error = await rejection(svc.runAgent(ACME, agent_id, { input: 'word '.repeat(400) }));
    expect(error.details).toStrictEqual({
      input: {
        message: 'input is too long for the context window of echo (1000 tokens, 500 kept for the answer)',
        path: ['input'],
      },
    });
  });
});

describe('streamAgent', () => {
  test('yields text deltas, then done with what runAgent returns; stores the turn', async () => {
    const svc = service();
    const { agent_id } = await svc.createAgent(ACME, { name: 'A', instruction: 'I', model: 'echo' });
    const events = await collect(await svc.streamAgent(ACME, agent_id, { input: 'one two', session_id: 's' }));
    expect(events).toStrictEqual([
      { type: 'text-delta', delta: 'Echo: ' },
      { type: 'text-delta', delta: 'one ' },
      { type: 'text-delta', delta: 'two' },
      {
        type: 'done',
        result: {
          output: 'Echo: one two',
          session_id: 's',
          status: 'completed',
          pending_approvals: [],
          metadata: {
            model: 'echo',
            agent_version: 1,
            tool_used: null,
            tools_used: [],
            tokens: { prompt: 9, completion: 4, total: 13 },
            omitted_messages: 0,
          },
        },
      },
    ]);
    expect(
      (await store.readMessages({ accountId: ACME, agentId: agent_id, sessionId: 's' })).map((m) => m.content),
    ).toStrictEqual(['one two', 'Echo: one two']);
  });

  test('a stream left early stores nothing and frees the session at once', async () => {
    const svc = service({ runWaitMs: 100 });
    const { agent_id } = await svc.createAgent(ACME, { name: 'A', instruction: 'I', model: 'echo' });
    for await (const event of await svc.streamAgent(ACME, agent_id, { input: 'one two three', session_id: 's' })) {
      expect(event.type).toBe('text-delta');
      break;
    }
    expect(await store.getSession({ accountId: ACME, agentId: agent_id, sessionId: 's' })).toBeUndefined();
    expect((await svc.runAgent(ACME, agent_id, { input: 'again', session_id: 's' })).output).toBe('Echo: again');
  });

  test('a stream never iterated frees the session when closed', async () => {
    const svc = service({ runWaitMs: 100 });
    const { agent_id } = await svc.createAgent(ACME, { name: 'A', instruction: 'I', model: 'echo' });
    const events = await svc.streamAgent(ACME, agent_id, { input: 'never read', session_id: 's' });
    await events[Symbol.asyncIterator]().return?.();
    expect((await svc.runAgent(ACME, agent_id, { input: 'next', session_id: 's' })).output).toBe('Echo: next');
    expect(
      (await store.readMessages({ accountId: ACME, agentId: agent_id, sessionId: 's' })).map((m) => m.content),
    ).toStrictEqual(['next', 'Echo: next']);
  });

  test('failures before the stream starts throw from streamAgent itself', async () => {
    const svc = service();
    expect((await rejection(svc.streamAgent(ACME, 'agent_404', { input: 'x' }))).code).toBe('not_found');
    const { agent_id } = await svc.createAgent(ACME, { name: 'A', instruction: 'I', model: 'echo' });
    expect((await rejection(svc.streamAgent(ACME, agent_id, { input: '' }))).code).toBe('invalid_input');
  });
});

describe('streamAgent: tools and failures', () => {
  test('tool calls and results are reported; a provider error mid-stream throws and stores nothing', async () => {
    const parts = (...p: LanguageModelV4StreamPart[]) => ({ stream: convertArrayToReadableStream(p) });
    let call = 0;
    const model = new MockLanguageModelV4({
      doStream: async () => {
        call++;
        if (call === 1) {
          return parts(
            { type: 'tool-call', toolCallId: 'c1', toolName: 'add', input: '{"a":2,"b":3}' },
            { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage: usage(10, 2) },
          );
        }
        if (call === 2) {
          return parts(
            { type: 'text-start', id: 't' },
            { type: 'text-delta', id: 't', delta: '5' },
            { type: 'text-end', id: 't' },
            { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: usage(20, 1) },
          );
        }
        return parts(
          { type: 'text-start', id: 't' },
          { type: 'text-delta', id: 't', delta: 'partial' },
          { type: 'error', error: new Error('upstream reset') },
        );
      },
    });
    const tools = staticTools({
      calculator: {
        add: tool({ inputSchema: z.object({ a: z.number(), b: z.number() }), execute: async ({ a, b }) => a + b }),
      },
    });
    const svc = service({ models: staticModels({ echo: model }), tools });
    const { agent_id } = await svc.createAgent(ACME, {
      name: 'A',
      instruction: 'I',
      model: 'echo',
      tool: 'calculator',
    });
    const events = await collect(await svc.streamAgent(ACME, agent_id, { input: '2+3?', session_id: 's' }));
    expect(events).toStrictEqual([
      { type: 'tool-call', tool_call_id: 'c1', tool_name: 'add', input: { a: 2, b: 3 } },
      { type: 'tool-result', tool_call_id: 'c1', tool_name: 'add', output: 5 },
      { type: 'text-delta', delta: '5' },
      {
        type: 'done',
        result: {
          output: '5',
          session_id: 's',
          status: 'completed',
          pending_approvals: [],
          metadata: {
            model: 'echo',
            agent_version: 1,
            tool_used: 'calculator',
            tools_used: ['calculator'],
            tokens: { prompt: 30, completion: 3, total: 33 },
            omitted_messages: 0,
          },
        },
      },
    ]);
    const failing = await svc.streamAgent(ACME, agent_id, { input: 'again', session_id: 's' });
    const error = await rejection(collect(failing));
    expect([error.code, (error.cause as Error).message]).toStrictEqual(['provider_error', 'upstream reset']);
    expect(
      (await store.readMessages({ accountId: ACME, agentId: agent_id, sessionId: 's' })).map((m) => m.content),
    ).toStrictEqual(['2+3?', '5']);
  });
});

const NO_FINISH = "The provider's stream ended without reporting why it stopped; it was not a complete answer stream";
const text = (delta: string): LanguageModelV4StreamPart[] => [
  { type: 'text-start', id: 't' },
  { type: 'text-delta', id: 't', delta },
  { type: 'text-end', id: 't' },
];
const finish = (
  unified: 'stop' | 'other' | 'error',
  raw: string | undefined,
  u: LanguageModelV4Usage = usage(5, 1),
): LanguageModelV4StreamPart => ({ type: 'finish', finishReason: { unified, raw }, usage: u });
/** What the AI SDK makes of a stream that ended without the provider's finish: no reason, no usage. */
const noUsage: LanguageModelV4Usage = {
  inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: undefined, text: undefined, reasoning: undefined },
};
const answering = (...answer: LanguageModelV4StreamPart[]) =>
  new MockLanguageModelV4({ doStream: async () => ({ stream: convertArrayToReadableStream(answer) }) });
let added = 0;
const calculator = staticTools({
  calculator: {
    add: tool({
      inputSchema: z.object({ a: z.number(), b: z.number() }),
      execute: async ({ a, b }) => {
        added++;
        return a + b;
      },
    }),
  },
});

/** Streams one run of a new agent on `model` in session `s`, collecting its events and the error it ends with. */
async function streamRun(model: MockLanguageModelV4, tool: string | null = null) {
  const svc = service({ models: staticModels({ echo: model }), tools: calculator, runWaitMs: 100 });
  const { agent_id } = await svc.createAgent(ACME, { name: 'A', instruction: 'I', model: 'echo', tool });
  const events: RunEvent[] = [];
  let error: unknown;
  try {
    for await (const e of await svc.streamAgent(ACME, agent_id, { input: 'hi', session_id: 's' })) events.push(e);
  } catch (e) {
    error = e;
  }
  return { svc, agent_id, events, error };
}

describe('streamed steps the provider did not finish', () => {
  test.each<[string, LanguageModelV4StreamPart[], string[], string]>([
    ['a stream that stops without a finish', text('partial'), ['partial'], NO_FINISH],
    ['a finish the provider gave neither a reason nor usage for', [finish('other', undefined, noUsage)], [], NO_FINISH],
    [
      'a finish in error',
      [...text('partial'), finish('error', 'error')],
      ['partial'],
      "The provider's stream ended in an error (raw finish reason: error)",
    ],
  ])(
    '%s is a provider_error like a plain run; nothing is stored and the session is free',
    async (_, answer, deltas, cause) => {
      const { svc, agent_id, events, error } = await streamRun(answering(...answer));
      expect(events).toStrictEqual(deltas.map((delta) => ({ type: 'text-delta', delta })));
      const e = await rejection(Promise.reject(error));
      expect([e.code, e.message, (e.cause as Error).message]).toStrictEqual([
        'provider_error',
        'The model provider failed to answer',
        cause,
      ]);
      expect(await store.getSession({ accountId: ACME, agentId: agent_id, sessionId: 's' })).toBeUndefined();
      // The session's lock was released: the next run of it starts within runWaitMs.
      await (await svc.streamAgent(ACME, agent_id, { input: 'next', session_id: 's' }))
        [Symbol.asyncIterator]()
        .return?.();
    },
  );

  test('a tool call in a step the provider did not finish fails the run; the tool is not run and no next step starts', async () => {
    added = 0;
    const model = answering(
      { type: 'tool-call', toolCallId: 'c1', toolName: 'add', input: '{"a":2,"b":3}' },
      finish('other', undefined, noUsage),
    );
    const { agent_id, events, error } = await streamRun(model, 'calculator');
    expect(events).toStrictEqual([{ type: 'tool-call', tool_call_id: 'c1', tool_name: 'add', input: { a: 2, b: 3 } }]);
    expect((await rejection(Promise.reject(error))).code).toBe('provider_error');
    expect([added, model.doStreamCalls.length]).toStrictEqual([0, 1]);
    expect(await store.getSession({ accountId: ACME, agentId: agent_id, sessionId: 's' })).toBeUndefined();
  });

  test.each<[string, LanguageModelV4StreamPart[], string[]]>([
    ['an empty answer with a reported stop', [finish('stop', 'stop', usage(5, 0))], []],
    [
      'a finish reason the AI SDK does not know, reported by the provider',
      [...text('fine'), finish('other', 'new_reason')],
      ['fine'],
    ],
    // Models of the older spec (V2) never report a raw reason; their usage shows the stream finished.
    [
      'a finish with usage but no raw reason, as older models report it',
      [...text('fine'), finish('other', undefined)],
      ['fine'],
    ],
  ])('%s is a success, and is stored', async (_, answer, deltas) => {
    const { agent_id, events, error } = await streamRun(answering(...answer));
    const output = deltas.join('');
    expect([error, events.at(-1)]).toMatchObject([undefined, { type: 'done', result: { output } }]);
    expect(events.slice(0, -1)).toStrictEqual(deltas.map((delta) => ({ type: 'text-delta', delta })));
    expect(
      (await store.readMessages({ accountId: ACME, agentId: agent_id, sessionId: 's' })).map((m) => m.content),
    ).toStrictEqual(['hi', output]);
  });
});

describe('tools that fail', () => {
  test('a tool that throws is reported to the model as a tool error, and the run goes on', async () => {
    let call = 0;
    const model = new MockLanguageModelV4({
      doGenerate: async () => {
        call++;
        return call === 1
          ? {
              content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'lookup', input: '{"id":"x"}' }],
              finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
              usage: usage(5, 5),
              warnings: [],
            }
          : {
              content: [{ type: 'text', text: 'The lookup failed.' }],
              finishReason: { unified: 'stop', raw: 'stop' },
              usage: usage(9, 4),
              warnings: [],
            };
      },
    });
    const tools = staticTools({
      crm: {
        lookup: tool({
          inputSchema: z.object({ id: z.string() }),
          execute: async (): Promise<string> => {
            throw new Error('CRM is down');
          },
        }),
      },
    });
    const svc = service({ models: staticModels({ echo: model }), tools });
    const { agent_id } = await svc.createAgent(ACME, { name: 'A', instruction: 'I', model: 'echo', tool: 'crm' });
    const result = await svc.runAgent(ACME, agent_id, { input: 'look up x' });
    expect([result.output, result.metadata.tool_used]).toStrictEqual(['The lookup failed.', 'crm']);
    const toolMessage = model.doGenerateCalls[1]!.prompt.find((m) => m.role === 'tool');
    expect(toolMessage?.content).toStrictEqual([
      {
        type: 'tool-result',
        toolCallId: 'c1',
        toolName: 'lookup',
        output: { type: 'error-text', value: 'Error: CRM is down' },
        providerOptions: undefined,
      },
    ]);
  });
});

describe('provider failures', () => {
  const failing = (error: unknown) =>
    service({
      models: staticModels({
        echo: new MockLanguageModelV4({
          doGenerate: async () => {
            throw error;
          },
        }),
      }),
    });
  const apiError = (statusCode: number, headers: Record<string, string> = {}) =>
    new APICallError({
      message: `HTTP ${statusCode}`,
      url: 'http://x',
      requestBodyValues: {},
      statusCode,
      responseHeaders: headers,
      isRetryable: statusCode === 429,
    });

  test.each([
    ['a 429 with Retry-After', apiError(429, { 'retry-after': '7' }), 'provider_rate_limited', 7],
    [
      'a 429 after the retries',
      new RetryError({
        message: 'failed',
        reason: 'maxRetriesExceeded',
        errors: [apiError(429, { 'retry-after-ms': '1500' })],
      }),
      'provider_rate_limited',
      2,
    ],
    ['a 429 without a hint', apiError(429), 'provider_rate_limited', 5],
    ["a 401 (the server's provider key)", apiError(401), 'provider_error', undefined],
    ['a 500', apiError(500), 'provider_error', undefined],
  ])('%s', async (_, error, code, retryAfter) => {
    const svc = failing(error);
    const { agent_id } = await svc.createAgent(ACME, { name: 'A', instruction: 'I', model: 'echo' });
    const e = await rejection(svc.runAgent(ACME, agent_id, { input: 'x' }));
    expect([e.code, e.retryAfterSeconds]).toStrictEqual([code, retryAfter]);
  });
});

describe('sessions', () => {
  test('list newest first in pages, read one with its messages in pages, delete it', async () => {
    const svc = service();
    const { agent_id } = await svc.createAgent(ACME, { name: 'A', instruction: 'I', model: 'echo' });
    for (let i = 0; i < 3; i++) await svc.runAgent(ACME, agent_id, { input: `q${i}`, session_id: `s${i}` });
    await svc.runAgent(ACME, agent_id, { input: 'q0 again', session_id: 's0' });
    const first = await svc.listSessions(ACME, agent_id, { limit: 2 });
    expect(first.sessions.map((s) => [s.session_id, s.message_count])).toStrictEqual([
      ['s2', 2],
      ['s1', 2],
    ]);
    const second = await svc.listSessions(ACME, agent_id, { limit: 2, cursor: first.next_cursor! });
    expect([second.sessions.map((s) => s.session_id), second.next_cursor]).toStrictEqual([['s0'], null]);

    const page = await svc.getSession(ACME, agent_id, 's0', { limit: 3 });
    expect(page).toStrictEqual({
      session_id: 's0',
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
      message_count: 4,
      pending_approvals: [],
      messages: [
        { role: 'user', content: 'q0', parts: [{ type: 'text', text: 'q0' }], created_at: '2026-01-01T00:00:00.000Z' },
        {
          role: 'assistant',
          content: 'Echo: q0',
          parts: [{ type: 'text', text: 'Echo: q0' }],
          created_at: '2026-01-01T00:00:00.000Z',
        },
        {
          role: 'user',
          content: 'q0 again',
          parts: [{ type: 'text', text: 'q0 again' }],
          created_at: '2026-01-01T00:00:00.000Z',
        },
      ],
      next_cursor: page.next_cursor,
    });
    expect(
      (await svc.getSession(ACME, agent_id, 's0', { cursor: page.next_cursor! })).messages.map((m) => m.content),
    ).toStrictEqual(['Echo: q0 again']);

    await svc.deleteSession(ACME, agent_id, 's0');
    expect((await rejection(svc.getSession(ACME, agent_id, 's0'))).message).toBe('Session not found');
    expect((await rejection(svc.deleteSession(ACME, agent_id, 's0'))).code).toBe('not_found');
    expect((await svc.listSessions(ACME, agent_id)).sessions.map((s) => s.session_id)).toStrictEqual(['s2', 's1']);
  });

  test("another account's agent or session is not found; bad paging is an input error", async () => {
    const svc = service();
    const { agent_id } = await svc.createAgent(ACME, { name: 'A', instruction: 'I', model: 'echo' });
    await svc.runAgent(ACME, agent_id, { input: 'q', session_id: 's' });
    expect((await rejection(svc.listSessions('other', agent_id))).code).toBe('not_found');
    expect((await rejection(svc.getSession('other', agent_id, 's'))).code).toBe('not_found');
    expect((await rejection(svc.deleteSession('other', agent_id, 's'))).code).toBe('not_found');
    expect((await rejection(svc.getSession(ACME, agent_id, 'bad/id'))).code).toBe('not_found');
    expect((await rejection(svc.listSessions(ACME, agent_id, { limit: 0 }))).details).toStrictEqual({
      limit: { message: 'limit must be a whole number from 1 to 100', path: ['limit'] },
    });
    expect((await rejection(svc.listSessions(ACME, agent_id, { cursor: 'forged' }))).details).toStrictEqual({
      cursor: { message: 'cursor is not one this server gave out', path: ['cursor'] },
    });
    expect(await store.getSession({ accountId: ACME, agentId: agent_id, sessionId: 's' })).toMatchObject({
      message_count: 2,
    });
  });
});
