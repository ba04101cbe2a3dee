import { MemoryStore } from '@agenthost/storage';
import type {
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4Prompt,
  LanguageModelV4StreamPart,
} from '@ai-sdk/provider';
import { tool } from 'ai';
import { convertArrayToReadableStream, MockLanguageModelV4 } from 'ai/test';
import fc from 'fast-check';
import { beforeEach, describe, expect, test } from 'vitest';
import { z } from 'zod';
import { AgentService } from '../agent-service.js';
import { agentShape } from '../agents/agent-records.js';
import { staticModels } from '../models/static-models.js';
import type { AgentConfig, RunEvent, RunResult } from '../records.js';
import { approvalResponseSchema } from '../schemas.js';
import { agentHostError } from '../testing/rejection.js';
import { sequentialIds, testClock } from '../testing/test-clock.js';
import { staticTools } from '../tools/static-tools.js';

const ACME = 'acme';
const AGENT = 'agent_tools';
const AT = '2026-01-01T00:00:00.000Z';

type Step = { text: string } | { calls: { id: string; name: string; input: unknown }[] } | { fail: string };

/** A model that answers each call with the next step of its script, and keeps every prompt. */
function scripted(steps: Step[]) {
  const prompts: LanguageModelV4Prompt[] = [];
  const usage = {
    inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: 2, text: 2, reasoning: 0 },
  };
  const next = (options: LanguageModelV4CallOptions) => {
    prompts.push(options.prompt);
    const step = steps.shift();
    if (!step) throw new Error('the script has no more steps');
    if ('fail' in step) throw new Error(step.fail);
    return step;
  };
  const content = (step: Exclude<Step, { fail: string }>): LanguageModelV4Content[] =>
    'text' in step
      ? [{ type: 'text', text: step.text }]
      : step.calls.map((c) => ({
          type: 'tool-call',
          toolCallId: c.id,
          toolName: c.name,
          input: JSON.stringify(c.input),
        }));
  const finishReason = (step: Exclude<Step, { fail: string }>) =>
    'text' in step ? { unified: 'stop' as const, raw: 'stop' } : { unified: 'tool-calls' as const, raw: 'tool_calls' };
  const model = new MockLanguageModelV4({
    doGenerate: async (options) => {
      const step = next(options);
      return { content: content(step), finishReason: finishReason(step), usage, warnings: [] };
    },
    doStream: async (options) => {
      const step = next(options);
      const parts: LanguageModelV4StreamPart[] =
        'text' in step
          ? [
              { type: 'text-start', id: 't' },
              { type: 'text-delta', id: 't', delta: step.text },
              { type: 'text-end', id: 't' },
            ]
          : step.calls.map((c) => ({
              type: 'tool-call',
              toolCallId: c.id,
              toolName: c.name,
              input: JSON.stringify(c.input),
            }));
      return {
        stream: convertArrayToReadableStream([...parts, { type: 'finish', finishReason: finishReason(step), usage }]),
      };
    },
  });
  return { model, prompts };
}

let store: MemoryStore;
let executed: string[];

beforeEach(() => {
  store = new MemoryStore();
  executed = [];
});

const tools = () =>
  staticTools({
    weather: {
      getWeather: tool({
        inputSchema: z.object({ city: z.string() }),
        execute: async ({ city }) => {
          executed.push(`getWeather ${city}`);
          return { city, sky: 'sunny' };
        },
      }),
    },
    search: {
      search: tool({
        inputSchema: z.object({ q: z.string() }),
        execute: async ({ q }) => {
          executed.push(`search ${q}`);
          return `results for ${q}`;
        },
      }),
    },
    mail: {
      send: tool({
        inputSchema: z.object({ to: z.string() }),
        execute: async ({ to }) => {
          executed.push(`send ${to}`);
          return { sent: to };
        },
      }),
    },
    clash: { search: tool({ inputSchema: z.object({}), execute: async () => 'other' }) },
  });

async function setUp(steps: Step[], config: Partial<AgentConfig>, others: Record<string, Step[]> = {}) {
  const { model, prompts } = scripted(steps);
  const more = Object.fromEntries(Object.entries(others).map(([name, s]) => [name, scripted(s).model]));
  const service = new AgentService({
    store,
    models: staticModels({ m: model, ...more }),
    tools: tools(),
    now: testClock(),
    generateId: sequentialIds(),
    maxRetries: 0,
  });
  const agent = agentShape({
    agent_id: AGENT,
    name: 'A',
    config: {
      agent_id: AGENT,
      name: 'A',
      instruction: 'Use tools.',
      model: 'm',
      tool: config.tools?.[0] ?? null,
      ...config,
    },
    created_at: AT,
    updated_at: AT,
  });
  await store.createAgent(ACME, agent);
  return { service, prompts };
}

const metadata = (tools_used: string[], steps: number) => ({
  model: 'm',
  agent_version: 1,
  tool_used: tools_used[0] ?? null,
  tools_used,
  tokens: { prompt: 10 * steps, completion: 2 * steps, total: 12 * steps },
  omitted_messages: 0,
});

async function collect(events: AsyncIterable<RunEvent>): Promise<RunEvent[]> {
  const out: RunEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

const weatherCall = { id: 'c1', name: 'getWeather', input: { city: 'Oslo' } };
const searchCall = { id: 'c2', name: 'search', input: { q: 'fjords' } };
const sendCall = { id: 'c3', name: 'send', input: { to: 'bob@example.com' } };

/** What the model is sent after \`send\` ran for bob@example.com. */
const SENT_RESULT = {
  role: 'tool',
  content: [
    {
      type: 'tool-result',
      toolCallId: 'c3',
      toolName: 'send',
      output: { type: 'json', value: { sent: 'bob@example.com' } },
    },
  ],
};

/** The stored parts of a turn whose \`send\` call was approved, ran, and was answered "Sent.". */
const sentTurnParts = (approvalId: string) => [
  { type: 'tool-call', tool_call_id: 'c3', tool_name: 'send', input: { to: 'bob@example.com' } },
  { type: 'tool-approval-request', approval_id: approvalId, tool_call_id: 'c3' },
  { type: 'tool-approval-response', approval_id: approvalId, approved: true },
  { type: 'tool-result', tool_call_id: 'c3', tool_name: 'send', output: { sent: 'bob@example.com' } },
  { type: 'text', text: 'Sent.' },
];

describe('several tools in one run', () => {
  test('two integrations are called in one run; tools_used lists both, and the turn keeps its parts', async () => {
    const { service } = await setUp([{ calls: [weatherCall] }, { calls: [searchCall] }, { text: 'Sunny; fjords.' }], {
      tools: ['weather', 'search'],
    });
    expect(await service.runAgent(ACME, AGENT, { input: 'Plan a trip', session_id: 's' })).toStrictEqual({
      output: 'Sunny; fjords.',
      session_id: 's',
      status: 'completed',
      pending_approvals: [],
      metadata: metadata(['weather', 'search'], 3),
    });
    expect(executed).toStrictEqual(['getWeather Oslo', 'search fjords']);
    const session = await service.getSession(ACME, AGENT, 's');
    expect([session.pending_approvals, session.messages]).toStrictEqual([
      [],
      [
        { role: 'user', content: 'Plan a trip', parts: [{ type: 'text', text: 'Plan a trip' }], created_at: AT },
        {
          role: 'assistant',
          content: 'Sunny; fjords.',
          parts: [
            { type: 'tool-call', tool_call_id: 'c1', tool_name: 'getWeather', input: { city: 'Oslo' } },
            {
              type: 'tool-result',
              tool_call_id: 'c1',
              tool_name: 'getWeather',
              output: { city: 'Oslo', sky: 'sunny' },
            },
            { type: 'tool-call', tool_call_id: 'c2', tool_name: 'search', input: { q: 'fjords' } },
            { type: 'tool-result', tool_call_id: 'c2', tool_name: 'search', output: 'results for fjords' },
            { type: 'text', text: 'Sunny; fjords.' },
          ],
          created_at: AT,
        },
      ],
    ]);
  });

  test('the next turn sends the earlier tool call and its result back to the model', async () => {
    const { service, prompts } = await setUp([{ calls: [weatherCall] }, { text: 'Sunny.' }, { text: 'Still sunny.' }], {
      tools: ['weather'],
    });
    await service.runAgent(ACME, AGENT, { input: 'Weather?', session_id: 's' });
    await service.runAgent(ACME, AGENT, { input: 'And now?', session_id: 's' });
    expect(prompts[2]).toEqual([
      { role: 'system', content: 'Use tools.' },
      { role: 'user', content: [{ type: 'text', text: 'Weather?' }] },
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'getWeather', input: { city: 'Oslo' } }],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'getWeather',
            output: { type: 'json', value: { city: 'Oslo', sky: 'sunny' } },
          },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'Sunny.' }] },
      { role: 'user', content: [{ type: 'text', text: 'And now?' }] },
    ]);
  });

  test('two integrations that give a tool of the same name are refused at run time', async () => {
    const { service } = await setUp([{ text: 'never' }], { tools: ['search', 'clash'] });
    const error = await agentHostError(service.runAgent(ACME, AGENT, { input: 'x' }));
    expect([error.code, error.message, error.details]).toStrictEqual([
      'invalid_input',
      'The tools "search" and "clash" both have a tool named "search"; keep one of them',
      {
        tools: {
          message: 'The tools "search" and "clash" both have a tool named "search"; keep one of them',
          path: ['tools'],
        },
      },
    ]);
  });
});

/** The pending approval a result lists for `call`, with the id the AI SDK gave it. */
const pendingFor = (result: RunResult, call: { id: string; name: string; input: unknown }) => {
  const approval = result.pending_approvals.find((a) => a.tool_call_id === call.id);
  return { approval_id: approval?.approval_id, tool_call_id: call.id, tool_name: call.name, input: call.input };
};

describe('approval gates that no longer match', () => {
  test('a require_approval name the agent’s tools no longer give fails the run; the tools never run unasked', async () => {
    const { service } = await setUp([{ calls: [sendCall] }, { text: 'Sent.' }], {
      tools: ['mail'],
      require_approval: ['send_mail'],
    });
    const refused = await agentHostError(service.runAgent(ACME, AGENT, { input: 'Mail Bob' }));
    expect([refused.code, refused.details, executed]).toStrictEqual([
      'invalid_input',
      {
        require_approval: {
          message: `require_approval names "send_mail", which the agent's tools no longer give; update the agent`,
          path: ['require_approval'],
        },
      },
      [],
    ]);
  });
});

describe('the answer bound of the agent', () => {
  test('a json_format whose answer could not fit the agent’s max_output_tokens is refused before the model is called', async () => {
    const { service, prompts } = await setUp([{ text: '{}' }], { max_output_tokens: 5 });
    const properties = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`field_${i}`, { type: 'string' }]));
    const format = { type: 'object', properties, required: Object.keys(properties) };
    const refused = await agentHostError(service.runAgent(ACME, AGENT, { input: 'Fill it', json_format: format }));
    expect([refused.code, Object.keys(refused.details ?? {}), prompts.length]).toStrictEqual([
      'invalid_input',
      ['json_format'],
      0,
    ]);
  });
});

describe('tools and fallback models', () => {
  test('a call that ran a tool and then failed is not tried again on a fallback model: the tool ran once', async () => {
    const { service } = await setUp(
      [{ calls: [weatherCall] }, { fail: 'down' }],
      { tools: ['weather'], fallback_models: ['b'] },
      { b: [{ calls: [weatherCall] }, { text: 'Sunny.' }] },
    );
    const failed = await agentHostError(service.runAgent(ACME, AGENT, { input: 'Weather?', session_id: 's' }));
    expect([failed.code, executed]).toStrictEqual(['provider_error', ['getWeather Oslo']]);
    expect((await service.listSessions(ACME, AGENT)).sessions).toStrictEqual([]);
  });

  test('a call that failed before any tool ran falls back', async () => {
    const { service } = await setUp(
      [{ fail: 'down' }],
      { tools: ['weather'], fallback_models: ['b'] },
      {
        b: [{ calls: [weatherCall] }, { text: 'Sunny.' }],
      },
    );
    const result = await service.runAgent(ACME, AGENT, { input: 'Weather?' });
    expect([result.output, result.metadata.model, executed]).toStrictEqual(['Sunny.', 'b', ['getWeather Oslo']]);
  });

  test('an approved tool runs once when the model after it fails, even with a fallback model; sent again, the fallback finishes the turn', async () => {
    const { service } = await setUp(
      [{ calls: [sendCall] }, { fail: 'down' }],
      { tools: ['mail'], require_approval: ['mail'], fallback_models: ['b'] },
      { b: [{ text: 'Sent.' }] },
    );
    const paused = await service.runAgent(ACME, AGENT, { input: 'Mail Bob', session_id: 's' });
    const approvalId = paused.pending_approvals[0]?.approval_id ?? '';
    const failed = await agentHostError(service.respondToApproval(ACME, AGENT, 's', approvalId, { approve: true }));
    expect([failed.code, executed]).toStrictEqual(['provider_error', ['send bob@example.com']]);
    const done = await service.respondToApproval(ACME, AGENT, 's', approvalId, { approve: true });
    expect([done.status, done.output, done.metadata.model, executed]).toStrictEqual([
      'completed',
      'Sent.',
      'b',
      ['send bob@example.com'],
    ]);
  });
});

describe('approval of tool calls', () => {
  test('a waiting turn whose tools the server no longer offers says it cannot go on, and keeps waiting', async () => {
    const { service } = await setUp([{ calls: [sendCall] }], { tools: ['mail'], require_approval: ['mail'] });
    const paused = await service.runAgent(ACME, AGENT, { input: 'Mail Bob', session_id: 's' });
    const approvalId = paused.pending_approvals[0]?.approval_id ?? '';
    const later = new AgentService({ store, models: staticModels({ m: scripted([]).model }), tools: staticTools({}) });
    const refused = await agentHostError(later.respondToApproval(ACME, AGENT, 's', approvalId, { approve: true }));
    expect([refused.code, refused.message, executed]).toStrictEqual([
      'invalid_input',
      `The session's waiting turn cannot go on: The server no longer offers the tool "mail". Delete the session to start it over`,
      [],
    ]);
    expect((await later.getSession(ACME, AGENT, 's')).pending_approvals).toStrictEqual(paused.pending_approvals);
  });

  test('a turn that paused on a fallback model the server no longer offers goes on with the version’s model', async () => {
    const { service } = await setUp(
      [{ fail: 'down' }],
      { tools: ['mail'], require_approval: ['mail'], fallback_models: ['b'] },
      { b: [{ calls: [sendCall] }] },
    );
    const paused = await service.runAgent(ACME, AGENT, { input: 'Mail Bob', session_id: 's' });
    expect([paused.status, paused.metadata.model]).toStrictEqual(['requires_approval', 'b']);
    // The server restarts without model b.
    const { model } = scripted([{ text: 'Sent.' }]);
    const later = new AgentService({ store, models: staticModels({ m: model }), tools: tools(), now: testClock() });
    const approvalId = paused.pending_approvals[0]?.approval_id ?? '';
    const done = await later.respondToApproval(ACME, AGENT, 's', approvalId, { approve: true });
    expect([done.status, done.output, done.metadata.model, executed]).toStrictEqual([
      'completed',
      'Sent.',
      'm',
      ['send bob@example.com'],
    ]);
  });

  test('a gated tool pauses the run; a run meanwhile is refused; approve runs the tool once and stores one turn', async () => {
    const { service, prompts } = await setUp([{ calls: [sendCall] }, { text: 'Sent.' }], {
      tools: ['mail'],
      require_approval: ['mail'],
    });
    const paused = await service.runAgent(ACME, AGENT, { input: 'Mail Bob', session_id: 's' });
    const approvalId = paused.pending_approvals[0]?.approval_id ?? '';
    expect(paused).toStrictEqual({
      output: '',
      session_id: 's',
      status: 'requires_approval',
      pending_approvals: [pendingFor(paused, sendCall)],
      metadata: metadata(['mail'], 1),
    });
    expect(executed).toStrictEqual([]);
    const waiting = await service.getSession(ACME, AGENT, 's');
    expect([waiting.message_count, waiting.messages, waiting.pending_approvals]).toStrictEqual([
      0,
      [],
      paused.pending_approvals,
    ]);
    const conflict = await agentHostError(service.runAgent(ACME, AGENT, { input: 'more', session_id: 's' }));
    expect([conflict.code, conflict.message]).toStrictEqual([
      'conflict',
      `The session's last turn waits for approval of tool calls (${approvalId}); approve or deny them first`,
    ]);

    const done = await service.respondToApproval(ACME, AGENT, 's', approvalId, { approve: true });
    expect(done).toStrictEqual({
      output: 'Sent.',
      session_id: 's',
      status: 'completed',
      pending_approvals: [],
      metadata: metadata(['mail'], 2),
    });
    expect(executed).toStrictEqual(['send bob@example.com']);
    expect(prompts[1]?.at(-1)).toEqual(SENT_RESULT);
    const session = await service.getSession(ACME, AGENT, 's');
    expect([session.pending_approvals, session.messages]).toStrictEqual([
      [],
      [
        { role: 'user', content: 'Mail Bob', parts: [{ type: 'text', text: 'Mail Bob' }], created_at: AT },
        {
          role: 'assistant',
          content: 'Sent.',
          parts: sentTurnParts(approvalId),
          created_at: AT,
        },
      ],
    ]);
    // Answered: the approval is gone, and answering it again finds nothing.
    const again = await agentHostError(service.respondToApproval(ACME, AGENT, 's', approvalId, { approve: true }));
    expect([again.code, again.message, executed.length]).toStrictEqual(['not_found', 'Approval not found', 1]);
  });

  test('a model call that fails after an approved tool ran keeps its result: the answer sent again finishes the turn, the tool ran once', async () => {
    const { service, prompts } = await setUp([{ calls: [sendCall] }, { fail: 'down' }, { text: 'Sent.' }], {
      tools: ['mail'],
      require_approval: ['mail'],
    });
    const paused = await service.runAgent(ACME, AGENT, { input: 'Mail Bob', session_id: 's' });
    const approvalId = paused.pending_approvals[0]?.approval_id ?? '';
    const failed = await agentHostError(service.respondToApproval(ACME, AGENT, 's', approvalId, { approve: true }));
    expect([failed.code, executed]).toStrictEqual(['provider_error', ['send bob@example.com']]);
    const waiting = await service.getSession(ACME, AGENT, 's');
    expect([waiting.message_count, waiting.pending_approvals]).toStrictEqual([0, []]);
    const conflict = await agentHostError(service.runAgent(ACME, AGENT, { input: 'more', session_id: 's' }));
    expect([conflict.code, conflict.message]).toStrictEqual([
      'conflict',
      "The session's last turn did not finish after its tool calls were answered; send one of those answers again to finish it",
    ]);

    // Sent again (whatever the body says now), the turn goes on from the kept result.
    const done = await service.respondToApproval(ACME, AGENT, 's', approvalId, { approve: false });
    expect([done.status, done.output, executed]).toStrictEqual(['completed', 'Sent.', ['send bob@example.com']]);
    expect(prompts[2]?.at(-1)).toEqual(SENT_RESULT);
    const session = await service.getSession(ACME, AGENT, 's');
    expect([session.pending_approvals, session.messages.map((m) => m.parts)]).toStrictEqual([
      [],
      [[{ type: 'text', text: 'Mail Bob' }], sentTurnParts(approvalId)],
    ]);
  });

  test('a turn that asked for JSON still answers JSON when it goes on after its approval', async () => {
    const { service } = await setUp([{ calls: [sendCall] }, { text: '{"sent":true}' }], {
      tools: ['mail'],
      require_approval: ['mail'],
    });
    const format = { type: 'object', properties: { sent: { type: 'boolean' } }, required: ['sent'] };
    const paused = await service.runAgent(ACME, AGENT, { input: 'Mail Bob', session_id: 's', json_format: format });
    expect([paused.status, paused.output]).toStrictEqual(['requires_approval', '']);
    const approvalId = paused.pending_approvals[0]?.approval_id ?? '';
    const done = await service.respondToApproval(ACME, AGENT, 's', approvalId, { approve: true });
    expect([done.status, done.output, executed]).toStrictEqual([
      'completed',
      '{"sent":true}',
      ['send bob@example.com'],
    ]);
    const session = await service.getSession(ACME, AGENT, 's');
    expect(session.messages.at(-1)?.content).toBe('{"sent":true}');
  });

  test('streamed: a JSON run pauses for approval, and its streamed answer ends in JSON', async () => {
    const { service } = await setUp([{ calls: [sendCall] }, { text: '{"sent":true}' }], {
      tools: ['mail'],
      require_approval: ['mail'],
    });
    const paused = await collect(
      await service.streamAgent(ACME, AGENT, { input: 'Mail Bob', session_id: 's', json_mode: true }),
    );
    const done = paused.at(-1);
    const approvalId = done?.type === 'done' ? (done.result.pending_approvals[0]?.approval_id ?? '') : '';
    expect(done?.type === 'done' && done.result.status).toBe('requires_approval');
    const resumed = await collect(
      await service.streamApprovalResponse(ACME, AGENT, 's', approvalId, { approve: true }),
    );
    const last = resumed.at(-1);
    expect(last?.type === 'done' && [last.result.status, last.result.output]).toStrictEqual([
      'completed',
      '{"sent":true}',
    ]);
  });

  test('deny passes the reason to the model; the tool never runs', async () => {
    const { service, prompts } = await setUp([{ calls: [sendCall] }, { text: 'Not sent.' }], {
      tools: ['mail'],
      require_approval: ['send'],
    });
    const paused = await service.runAgent(ACME, AGENT, { input: 'Mail Bob', session_id: 's' });
    const approvalId = paused.pending_approvals[0]?.approval_id ?? '';
    const done = await service.respondToApproval(ACME, AGENT, 's', approvalId, { approve: false, reason: 'Not Bob' });
    expect([done.output, done.status, executed]).toStrictEqual(['Not sent.', 'completed', []]);
    expect(prompts[1]?.at(-1)).toEqual({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'c3',
          toolName: 'send',
          output: { type: 'execution-denied', reason: 'Not Bob' },
        },
      ],
    });
    const [, reply] = (await service.getSession(ACME, AGENT, 's')).messages;
    expect(reply?.parts?.slice(2, 4)).toStrictEqual([
      { type: 'tool-approval-response', approval_id: approvalId, approved: false, reason: 'Not Bob' },
      {
        type: 'tool-result',
        tool_call_id: 'c3',
        tool_name: 'send',
        output: 'The tool call was denied: Not Bob',
        is_error: true,
      },
    ]);
  });

  test('two approvals in one turn: the first answer keeps the turn waiting, the second finishes it', async () => {
    const second = { id: 'c4', name: 'send', input: { to: 'eve@example.com' } };
    const { service } = await setUp([{ calls: [sendCall, second, weatherCall] }, { text: 'One sent.' }], {
      tools: ['mail', 'weather'],
      require_approval: ['send'],
    });
    const paused = await service.runAgent(ACME, AGENT, { input: 'Mail both', session_id: 's' });
    expect([paused.status, paused.pending_approvals]).toStrictEqual([
      'requires_approval',
      [pendingFor(paused, sendCall), pendingFor(paused, second)],
    ]);
    // The tool that needs no approval ran at once.
    expect(executed).toStrictEqual(['getWeather Oslo']);
    const [first, last] = paused.pending_approvals.map((a) => a.approval_id);
    const waiting = await service.respondToApproval(ACME, AGENT, 's', first!, { approve: true });
    expect(waiting).toStrictEqual({
      ...paused,
      pending_approvals: [pendingFor(paused, second)],
    });
    expect(executed).toStrictEqual(['getWeather Oslo']);
    const done = await service.respondToApproval(ACME, AGENT, 's', last!, { approve: false });
    expect(done).toStrictEqual({
      output: 'One sent.',
      session_id: 's',
      status: 'completed',
      pending_approvals: [],
      metadata: metadata(['mail', 'weather'], 2),
    });
    expect(executed).toStrictEqual(['getWeather Oslo', 'send bob@example.com']);
    expect((await service.getSession(ACME, AGENT, 's')).messages.length).toBe(2);
  });

  test('streamed: approval-request events then done; the streamed answer resumes the turn', async () => {
    const { service } = await setUp([{ calls: [sendCall] }, { text: 'Sent.' }], {
      tools: ['mail'],
      require_approval: ['mail'],
    });
    const events = await collect(await service.streamAgent(ACME, AGENT, { input: 'Mail Bob', session_id: 's' }));
    const done = events.at(-1) as Extract<RunEvent, { type: 'done' }>;
    const pending = done.result.pending_approvals;
    expect(events).toStrictEqual([
      { type: 'tool-call', tool_call_id: 'c3', tool_name: 'send', input: { to: 'bob@example.com' } },
      { type: 'approval-request', ...pending[0] },
      {
        type: 'done',
        result: {
          output: '',
          session_id: 's',
          status: 'requires_approval',
          pending_approvals: [pendingFor(done.result, sendCall)],
          metadata: metadata(['mail'], 1),
        },
      },
    ]);
    const resumed = await service.streamApprovalResponse(ACME, AGENT, 's', pending[0]!.approval_id, { approve: true });
    expect([resumed.session_id, await collect(resumed)]).toStrictEqual([
      's',
      [
        { type: 'tool-result', tool_call_id: 'c3', tool_name: 'send', output: { sent: 'bob@example.com' } },
        { type: 'text-delta', delta: 'Sent.' },
        {
          type: 'done',
          result: {
            output: 'Sent.',
            session_id: 's',
            status: 'completed',
            pending_approvals: [],
            metadata: metadata(['mail'], 2),
          },
        },
      ],
    ]);
    expect(executed).toStrictEqual(['send bob@example.com']);
    const [, reply] = (await service.getSession(ACME, AGENT, 's')).messages;
    expect(reply?.parts).toStrictEqual([
      { type: 'tool-call', tool_call_id: 'c3', tool_name: 'send', input: { to: 'bob@example.com' } },
      { type: 'tool-approval-request', approval_id: pending[0]!.approval_id, tool_call_id: 'c3' },
      { type: 'tool-approval-response', approval_id: pending[0]!.approval_id, approved: true },
      { type: 'tool-result', tool_call_id: 'c3', tool_name: 'send', output: { sent: 'bob@example.com' } },
      { type: 'text', text: 'Sent.' },
    ]);
  });

  test('streamed deny: the denial is reported as a tool error, and the model answers', async () => {
    const { service } = await setUp([{ calls: [sendCall] }, { text: 'Not sent.' }], {
      tools: ['mail'],
      require_approval: ['mail'],
    });
    const paused = await service.runAgent(ACME, AGENT, { input: 'Mail Bob', session_id: 's' });
    const approvalId = paused.pending_approvals[0]!.approval_id;
    const events = await collect(
      await service.streamApprovalResponse(ACME, AGENT, 's', approvalId, { approve: false, reason: 'No' }),
    );
    expect(events.slice(0, 2)).toStrictEqual([
      { type: 'tool-error', tool_call_id: 'c3', tool_name: 'send', error: 'The tool call was denied' },
      { type: 'text-delta', delta: 'Not sent.' },
    ]);
    expect([events.length, executed]).toStrictEqual([3, []]);
    const [, reply] = (await service.getSession(ACME, AGENT, 's')).messages;
    expect(reply?.parts?.[3]).toStrictEqual({
      type: 'tool-result',
      tool_call_id: 'c3',
      tool_name: 'send',
      output: 'The tool call was denied: No',
      is_error: true,
    });
  });

  test('a resumed turn that calls another gated tool waits again, and keeps all its parts', async () => {
    const again = { id: 'c5', name: 'send', input: { to: 'eve@example.com' } };
    const { service } = await setUp([{ calls: [sendCall] }, { calls: [again] }, { text: 'Both sent.' }], {
      tools: ['mail'],
      require_approval: ['send'],
    });
    const first = await service.runAgent(ACME, AGENT, { input: 'Mail both', session_id: 's' });
    const second = await service.respondToApproval(ACME, AGENT, 's', first.pending_approvals[0]!.approval_id, {
      approve: true,
    });
    expect([second.status, second.pending_approvals, second.metadata.tokens, executed]).toStrictEqual([
      'requires_approval',
      [pendingFor(second, again)],
      { prompt: 20, completion: 4, total: 24 },
      ['send bob@example.com'],
    ]);
    const done = await service.respondToApproval(ACME, AGENT, 's', second.pending_approvals[0]!.approval_id, {
      approve: true,
    });
    expect([done.output, done.metadata, executed]).toStrictEqual([
      'Both sent.',
      metadata(['mail'], 3),
      ['send bob@example.com', 'send eve@example.com'],
    ]);
    const [user, reply] = (await service.getSession(ACME, AGENT, 's')).messages;
    expect([user?.content, reply?.parts?.map((p) => p.type)]).toStrictEqual([
      'Mail both',
      [
        'tool-call',
        'tool-approval-request',
        'tool-approval-response',
        'tool-result',
        'tool-call',
        'tool-approval-request',
        'tool-approval-response',
        'tool-result',
        'text',
      ],
    ]);
  });

  test('a streamed run on a waiting session is refused too; deleting the session drops the waiting turn', async () => {
    const { service } = await setUp([{ calls: [sendCall] }, { text: 'Fresh start.' }], {
      tools: ['mail'],
      require_approval: ['mail'],
    });
    const paused = await service.runAgent(ACME, AGENT, { input: 'Mail Bob', session_id: 's' });
    const conflict = await agentHostError(service.streamAgent(ACME, AGENT, { input: 'more', session_id: 's' }));
    expect(conflict.code).toBe('conflict');
    await service.deleteSession(ACME, AGENT, 's');
    const gone = await agentHostError(
      service.respondToApproval(ACME, AGENT, 's', paused.pending_approvals[0]!.approval_id, { approve: true }),
    );
    const fresh = await service.runAgent(ACME, AGENT, { input: 'Hello', session_id: 's' });
    expect([gone.message, fresh.output, fresh.status, executed]).toStrictEqual([
      'Approval not found',
      'Fresh start.',
      'completed',
      [],
    ]);
  });

  test('an unknown approval, session or answer is refused and changes nothing', async () => {
    const { service } = await setUp([{ calls: [sendCall] }], { tools: ['mail'], require_approval: ['mail'] });
    const paused = await service.runAgent(ACME, AGENT, { input: 'Mail Bob', session_id: 's' });
    const approvalId = paused.pending_approvals[0]!.approval_id;
    const unknown = await agentHostError(service.respondToApproval(ACME, AGENT, 's', 'nope', { approve: true }));
    const otherSession = await agentHostError(
      service.respondToApproval(ACME, AGENT, 't', approvalId, { approve: true }),
    );
    const otherAccount = await agentHostError(
      service.respondToApproval('evil', AGENT, 's', approvalId, { approve: true }),
    );
    const bad = await agentHostError(
      service.respondToApproval(ACME, AGENT, 's', approvalId, { approve: 'yes' } as never),
    );
    expect([unknown.message, otherSession.message, otherAccount.message, bad.code, bad.details]).toStrictEqual([
      'Approval not found',
      'Approval not found',
      'Agent not found',
      'invalid_input',
      { approve: { message: 'approve must be true or false', path: ['approve'] } },
    ]);
    expect([(await service.getSession(ACME, AGENT, 's')).pending_approvals, executed]).toStrictEqual([
      paused.pending_approvals,
      [],
    ]);
  });

  test('answers to the two approvals of a turn sent at once take turns: one waits, one finishes the turn', async () => {
    const second = { id: 'c4', name: 'send', input: { to: 'eve@example.com' } };
    const { service } = await setUp([{ calls: [sendCall, second] }, { text: 'Done.' }], {
      tools: ['mail'],
      require_approval: ['mail'],
    });
    const paused = await service.runAgent(ACME, AGENT, { input: 'Mail both', session_id: 's' });
    const results = await Promise.all(
      paused.pending_approvals.map((a) =>
        service.respondToApproval(ACME, AGENT, 's', a.approval_id, { approve: true }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toStrictEqual(['completed', 'requires_approval']);
    expect([executed.sort(), (await service.getSession(ACME, AGENT, 's')).message_count]).toStrictEqual([
      ['send bob@example.com', 'send eve@example.com'],
      2,
    ]);
  });

  test('any answer body or approval id a client sends is refused cleanly and leaves the turn waiting', async () => {
    const { service } = await setUp([{ calls: [sendCall] }], { tools: ['mail'], require_approval: ['mail'] });
    const paused = await service.runAgent(ACME, AGENT, { input: 'Mail Bob', session_id: 's' });
    const approvalId = paused.pending_approvals[0]!.approval_id;
    const body = fc.oneof(
      fc.anything(),
      fc.record({ approve: fc.anything(), reason: fc.anything() }, { requiredKeys: [] }),
      fc.record({ approve: fc.constant(true), reason: fc.oneof(fc.string({ minLength: 2001 }), fc.integer()) }),
    );
    await fc.assert(
      fc.asyncProperty(body, fc.string(), async (input, id) => {
        const valid = approvalResponseSchema.safeParse(input ?? {}).success;
        const target = valid ? id.replace(approvalId, '') || 'x' : approvalId;
        const error = await agentHostError(service.respondToApproval(ACME, AGENT, 's', target, input as never));
        expect(error.code).toBe(valid ? 'not_found' : 'invalid_input');
      }),
      { seed: 20261124, numRuns: 300 },
    );
    expect([(await service.getSession(ACME, AGENT, 's')).pending_approvals, executed]).toStrictEqual([
      paused.pending_approvals,
      [],
    ]);
  });
});
