import { MemoryStore } from '@agenthost/storage';
import { convertArrayToReadableStream, MockLanguageModelV4 } from 'ai/test';
import { beforeEach, describe, expect, test } from 'vitest';
import { AgentService } from '../agent-service.js';
import type { RunEvent } from '../records.js';
import { mockModels } from './mock-models.js';
import { sequentialIds, testClock } from './test-clock.js';

const ACME = 'acme';
let store: MemoryStore;

beforeEach(() => {
  store = new MemoryStore();
});

async function setUp(models: ReturnType<typeof mockModels>, model: string) {
  const service = new AgentService({ store, models, now: testClock(), generateId: sequentialIds() });
  const { agent_id } = await service.createAgent(ACME, { name: 'A', instruction: 'Be brief.', model });
  return { service, agentId: agent_id };
}

const metadata = (model: string, prompt: number, completion: number, omitted = 0) => ({
  model,
  agent_version: 1,
  tool_used: null,
  tools_used: [],
  tokens: { prompt, completion, total: prompt + completion },
  omitted_messages: omitted,
});

/** The result fields of a completed run besides its metadata. */
const completed = (output: string, session_id: string) => ({
  output,
  session_id,
  status: 'completed' as const,
  pending_approvals: [],
});

describe('mockModels', () => {
  test('lists the names it was given and serves nothing else', () => {
    const models = mockModels({ fixed: 'x', echo: ({ input }) => input });
    expect([models.listModels(), models.languageModel('other')]).toStrictEqual([['fixed', 'echo'], undefined]);
  });

  test('a plain run answers with the fixed text; usage counts words', async () => {
    const { service, agentId } = await setUp(mockModels({ 'my-model': 'Fixed reply here' }), 'my-model');
    expect(await service.runAgent(ACME, agentId, { input: 'Hello there' })).toStrictEqual({
      ...completed('Fixed reply here', 'session_1'),
      metadata: metadata('my-model', 4, 3),
    });
  });

  test('a streamed run sends the answer a word at a time, then done', async () => {
    const { service, agentId } = await setUp(mockModels({ m: ({ input }) => `You said: ${input}` }), 'm');
    const events: RunEvent[] = [];
    for await (const event of await service.streamAgent(ACME, agentId, { input: 'hi' })) events.push(event);
    expect(events).toStrictEqual([
      { type: 'text-delta', delta: 'You ' },
      { type: 'text-delta', delta: 'said: ' },
      { type: 'text-delta', delta: 'hi' },
      { type: 'done', result: { ...completed('You said: hi', 'session_1'), metadata: metadata('m', 3, 3) } },
    ]);
  });
});

describe('mockModels: sessions, JSON and models of your own', () => {
  test('a session continues: the reply function sees the earlier turns, and the prompts are kept', async () => {
    const models = mockModels({ m: async ({ messages }) => `turn ${(messages.length + 1) / 2}` });
    const { service, agentId } = await setUp(models, 'm');
    const first = await service.runAgent(ACME, agentId, { input: 'one', session_id: 's' });
    const events: RunEvent[] = [];
    for await (const event of await service.streamAgent(ACME, agentId, { input: 'two', session_id: 's' }))
      events.push(event);
    expect([first.output, events.at(-1)]).toStrictEqual([
      'turn 1',
      { type: 'done', result: { ...completed('turn 2', 's'), metadata: metadata('m', 6, 2) } },
    ]);
    expect(models.prompts('m')).toStrictEqual([
      { instruction: 'Be brief.', messages: [{ role: 'user', content: 'one' }], input: 'one' },
      {
        instruction: 'Be brief.',
        messages: [
          { role: 'user', content: 'one' },
          { role: 'assistant', content: 'turn 1' },
          { role: 'user', content: 'two' },
        ],
        input: 'two',
      },
    ]);
    const session = await service.getSession(ACME, agentId, 's');
    expect(session.messages.map((m) => [m.role, m.content])).toStrictEqual([
      ['user', 'one'],
      ['assistant', 'turn 1'],
      ['user', 'two'],
      ['assistant', 'turn 2'],
    ]);
  });

  test('a JSON reply answers a json_mode run', async () => {
    const { service, agentId } = await setUp(mockModels({ m: '{"ok":true}' }), 'm');
    expect((await service.runAgent(ACME, agentId, { input: 'status?', json_mode: true })).output).toBe('{"ok":true}');
  });

  test('a model of your own is served as it is', async () => {
    const own = new MockLanguageModelV4({
      doStream: async () => ({
        stream: convertArrayToReadableStream([
          { type: 'text-start', id: 't' },
          { type: 'text-delta', id: 't', delta: 'custom' },
          { type: 'text-end', id: 't' },
          {
            type: 'finish',
            finishReason: { unified: 'stop', raw: 'stop' },
            usage: {
              inputTokens: { total: 7, noCache: 7, cacheRead: 0, cacheWrite: 0 },
              outputTokens: { total: 1, text: 1, reasoning: 0 },
            },
          },
        ]),
      }),
    });
    const models = mockModels({ own });
    const { service, agentId } = await setUp(models, 'own');
    const events: RunEvent[] = [];
    for await (const event of await service.streamAgent(ACME, agentId, { input: 'x' })) events.push(event);
    expect(events.at(-1)).toStrictEqual({
      type: 'done',
      result: { ...completed('custom', 'session_1'), metadata: metadata('own', 7, 1) },
    });
    expect([models.languageModel('own'), models.prompts('own'), own.doStreamCalls.length]).toStrictEqual([own, [], 1]);
  });
});
