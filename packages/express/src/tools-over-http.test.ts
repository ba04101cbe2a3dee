import { AgentService, openAIModels, staticTools } from '@agenthost/core';
import {
  type FakeOpenAIReply,
  type FakeOpenAIRequest,
  type FakeOpenAIServer,
  sequentialIds,
  startFakeOpenAIServer,
} from '@agenthost/core/test';
import { MemoryStore } from '@agenthost/storage';
import { tool } from 'ai';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { z } from 'zod';
import { staticKeys } from './auth.js';
import { type ServedRouter, serveRouter } from './test-served-router.js';

// Several tools, tool history and approvals through the HTTP API: the real @ai-sdk/openai provider
// (Chat Completions and Responses) against a loopback fake whose model calls tools as each input asks.
const KEY = 'key-tools-0123456789abcdef';
const OTHER = 'key-tools-other-0123456789';
let fake: FakeOpenAIServer;
let served: ServedRouter;
let base: string;
/** How many times each tool ran. */
let ran: Record<'add' | 'now' | 'send_mail', number>;

/** The fake model: after tool results, sums them up; else calls the tools the input names. */
function behaviour(request: FakeOpenAIRequest): FakeOpenAIReply {
  const at = request.messages.findLastIndex((m) => m.role === 'user');
  const input = request.messages[at]?.content ?? '';
  const results = request.messages.slice(at + 1).filter((m) => m.role === 'tool');
  if (results.length > 0)
    return { text: `Done: ${results.map((m) => m.content).join(', ')}`, usage: { input: 30, output: 5 } };
  if (input === 'add and time')
    return {
      toolCalls: [
        { name: 'add', arguments: { a: 2, b: 3 }, id: 'call_add' },
        { name: 'now', arguments: {}, id: 'call_now' },
      ],
      usage: { input: 20, output: 8 },
    };
  if (input.startsWith('mail '))
    return {
      toolCalls: input
        .slice('mail '.length)
        .split(' and ')
        .map((to) => ({ name: 'send_mail', arguments: { to }, id: `call_${to}` })),
      usage: { input: 20, output: 8 },
    };
  return { text: `Reply to: ${input}`, usage: { input: 10, output: 4 } };
}

async function serve(api: 'chat' | 'responses') {
  fake = await startFakeOpenAIServer({ reply: behaviour });
  ran = { add: 0, now: 0, send_mail: 0 };
  const tools = staticTools({
    calculator: {
      add: tool({
        description: 'Adds two numbers',
        inputSchema: z.object({ a: z.number(), b: z.number() }),
        execute: async ({ a, b }) => {
          ran.add++;
          return a + b;
        },
      }),
    },
    clock: {
      now: tool({
        description: 'The time',
        inputSchema: z.object({}),
        execute: async () => {
          ran.now++;
          return '12:00';
        },
      }),
    },
    mailer: {
      send_mail: tool({
        description: 'Sends a mail',
        inputSchema: z.object({ to: z.string() }),
        execute: async ({ to }) => {
          ran.send_mail++;
          return `sent to ${to}`;
        },
      }),
    },
  });
  const service = new AgentService({
    store: new MemoryStore(),
    models: openAIModels({ apiKey: 'provider-key', baseURL: fake.baseURL, api, models: ['gpt-4o-mini'] }),
    tools,
    generateId: sequentialIds(),
    maxRetries: 0,
    runWaitMs: 200,
  });
  served = await serveRouter(service, {
    resolveKey: staticKeys([
      { account: 'acme', key: KEY },
      { account: 'other', key: OTHER },
    ]),
    logger: { error: () => {} },
  });
  base = served.base;
}

afterEach(async () => {
  await served.close();
  await fake.close();
});

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(base + path, {
    method,
    headers: { 'x-api-key': KEY, 'content-type': 'application/json', ...headers },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, any> };
}

/** Reads a server-sent event stream to its end. */
async function events(path: string, body: unknown): Promise<{ event: string; data: any }[]> {
  const res = await fetch(base + path, {
    method: 'POST',
    headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
  return (await res.text())
    .split('\n\n')
    .filter((block) => block.startsWith('id:'))
    .map((block) => {
      const [, eventLine, dataLine] = block.split('\n');
      return { event: eventLine!.slice('event: '.length), data: JSON.parse(dataLine!.slice('data: '.length)) };
    });
}

async function agent(config: Record<string, unknown>): Promise<string> {
  const res = await call('POST', '/agents', {
    name: 'Tools',
    instruction: 'Be brief.',
    model: 'gpt-4o-mini',
    ...config,
  });
  expect(res.status).toBe(200);
  return res.body.data.agent_id as string;
}

const mailAgent = () => agent({ tools: ['mailer'], require_approval: ['send_mail'] });
const approvalPath = (agentId: string, sessionId: string, approvalId: string) =>
  `/agents/${agentId}/sessions/${sessionId}/approvals/${approvalId}`;
const tokens = (prompt: number, completion: number) => ({ prompt, completion, total: prompt + completion });

/** A run's metadata, as the API answers it. */
const metadata = (fields: { tools_used: string[]; tokens: ReturnType<typeof tokens> }) => ({
  model: 'gpt-4o-mini',
  agent_version: 1,
  tool_used: fields.tools_used[0] ?? null,
  tools_used: fields.tools_used,
  tokens: fields.tokens,
  omitted_messages: 0,
  cost: expect.any(Number),
});

/** What the fake model was sent after the system instruction, in its last request. */
const lastConversation = () => fake.requests.at(-1)!.messages.slice(1);

describe.each(['chat', 'responses'] as const)('tools over the OpenAI %s API', (api) => {
  beforeEach(() => serve(api));

  test('an agent with two tools calls both in one run; the next turn sends the calls and results back', async () => {
    const agentId = await agent({ tools: ['calculator', 'clock'] });
    const first = await call('POST', `/agents/${agentId}/run`, { input: 'add and time' });
    const sessionId = first.body.data.session_id as string;
    expect([first.status, first.body]).toStrictEqual([
      200,
      {
        success: true,
        data: {
          output: 'Done: 5, 12:00',
          session_id: sessionId,
          status: 'completed',
          pending_approvals: [],
          metadata: metadata({ tools_used: ['calculator', 'clock'], tokens: tokens(50, 13) }),
        },
        status: 200,
      },
    ]);
    expect(ran).toStrictEqual({ add: 1, now: 1, send_mail: 0 });

    const second = await call('POST', `/agents/${agentId}/run`, { input: 'thanks', session_id: sessionId });
    expect(second.body.data.output).toBe('Reply to: thanks');
    expect(second.body.data.metadata.tools_used).toStrictEqual([]);
    expect(lastConversation()).toStrictEqual([
      { role: 'user', content: 'add and time' },
      { role: 'assistant', content: 'call add({"a":2,"b":3})' },
      { role: 'assistant', content: 'call now({})' },
      { role: 'tool', content: '5' },
      { role: 'tool', content: '12:00' },
      { role: 'assistant', content: 'Done: 5, 12:00' },
      { role: 'user', content: 'thanks' },
    ]);
    // The tools ran once each, in the first turn only.
    expect(ran).toStrictEqual({ add: 1, now: 1, send_mail: 0 });
  });

  test('an approval-gated tool pauses the run; approve resumes it and the tool runs exactly once', async () => {
    const agentId = await mailAgent();
    const paused = await call('POST', `/agents/${agentId}/run`, { input: 'mail bob' });
    const sessionId = paused.body.data.session_id as string;
    const approvalId = paused.body.data.pending_approvals[0]?.approval_id as string;
    const pending = [
      { approval_id: approvalId, tool_call_id: 'call_bob', tool_name: 'send_mail', input: { to: 'bob' } },
    ];
    expect([paused.status, paused.body]).toStrictEqual([
      200,
      {
        success: true,
        data: {
          output: '',
          session_id: sessionId,
          status: 'requires_approval',
          pending_approvals: pending,
          metadata: metadata({ tools_used: ['mailer'], tokens: tokens(20, 8) }),
        },
        status: 200,
      },
    ]);
    expect(ran.send_mail).toBe(0);
    const waiting = await call('GET', `/agents/${agentId}/sessions/${sessionId}`);
    expect([waiting.body.data.pending_approvals, waiting.body.data.messages]).toStrictEqual([pending, []]);

    // A new run must not start over the waiting turn.
    const refused = await call('POST', `/agents/${agentId}/run`, { input: 'hello', session_id: sessionId });
    expect([refused.status, refused.body.code, refused.body.error.includes(approvalId)]).toStrictEqual([
      409,
      'conflict',
      true,
    ]);

    const approved = await call('POST', approvalPath(agentId, sessionId, approvalId), { approve: true });
    expect([approved.status, approved.body]).toStrictEqual([
      200,
      {
        success: true,
        data: {
          output: 'Done: sent to bob',
          session_id: sessionId,
          status: 'completed',
          pending_approvals: [],
          metadata: metadata({ tools_used: ['mailer'], tokens: tokens(50, 13) }),
        },
        status: 200,
      },
    ]);
    expect(ran.send_mail).toBe(1);
    expect(lastConversation()).toStrictEqual([
      { role: 'user', content: 'mail bob' },
      { role: 'assistant', content: 'call send_mail({"to":"bob"})' },
      { role: 'tool', content: 'sent to bob' },
    ]);

    // Answered: the approval is no longer pending, and the tool does not run again.
    const again = await call('POST', approvalPath(agentId, sessionId, approvalId), { approve: true });
    expect([again.status, again.body.code, ran.send_mail]).toStrictEqual([404, 'not_found', 1]);

    const session = await call('GET', `/agents/${agentId}/sessions/${sessionId}`);
    expect(session.body.data).toStrictEqual({
      session_id: sessionId,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      message_count: 2,
      pending_approvals: [],
      messages: [
        {
          role: 'user',
          content: 'mail bob',
          parts: [{ type: 'text', text: 'mail bob' }],
          created_at: expect.any(String),
        },
        {
          role: 'assistant',
          content: 'Done: sent to bob',
          parts: [
            { type: 'tool-call', tool_call_id: 'call_bob', tool_name: 'send_mail', input: { to: 'bob' } },
            { type: 'tool-approval-request', approval_id: approvalId, tool_call_id: 'call_bob' },
            { type: 'tool-approval-response', approval_id: approvalId, approved: true },
            { type: 'tool-result', tool_call_id: 'call_bob', tool_name: 'send_mail', output: 'sent to bob' },
            { type: 'text', text: 'Done: sent to bob' },
          ],
          created_at: expect.any(String),
        },
      ],
      next_cursor: null,
    });
  });

  test('deny ends the run with the reason: the model is told it, and the tool never runs', async () => {
    const agentId = await mailAgent();
    const paused = await call('POST', `/agents/${agentId}/run`, { input: 'mail eve' });
    const { session_id: sessionId, pending_approvals } = paused.body.data;
    const approvalId = pending_approvals[0].approval_id as string;
    const denied = await call('POST', approvalPath(agentId, sessionId, approvalId), {
      approve: false,
      reason: 'eve is not a customer',
    });
    expect([denied.status, denied.body.data.output, denied.body.data.status]).toStrictEqual([
      200,
      'Done: eve is not a customer',
      'completed',
    ]);
    expect(ran.send_mail).toBe(0);
    expect(lastConversation()).toStrictEqual([
      { role: 'user', content: 'mail eve' },
      { role: 'assistant', content: 'call send_mail({"to":"eve"})' },
      { role: 'tool', content: 'eve is not a customer' },
    ]);
    const session = await call('GET', `/agents/${agentId}/sessions/${sessionId}`);
    expect(session.body.data.messages[1].parts).toStrictEqual([
      { type: 'tool-call', tool_call_id: 'call_eve', tool_name: 'send_mail', input: { to: 'eve' } },
      { type: 'tool-approval-request', approval_id: approvalId, tool_call_id: 'call_eve' },
      { type: 'tool-approval-response', approval_id: approvalId, approved: false, reason: 'eve is not a customer' },
      {
        type: 'tool-result',
        tool_call_id: 'call_eve',
        tool_name: 'send_mail',
        output: expect.anything(),
        is_error: true,
      },
      { type: 'text', text: 'Done: eve is not a customer' },
    ]);
  });
});

describe('approvals over HTTP', () => {
  beforeEach(() => serve('chat'));

  test('streamed: the run pauses with approval-request then done; the streamed approval resumes it', async () => {
    const agentId = await mailAgent();
    const paused = await events(`/agents/${agentId}/run`, { input: 'mail bob', stream: true });
    const done = paused.at(-1)!.data;
    const approvalId = done.pending_approvals[0]?.approval_id as string;
    const pending = { approval_id: approvalId, tool_call_id: 'call_bob', tool_name: 'send_mail', input: { to: 'bob' } };
    expect(paused).toStrictEqual([
      { event: 'tool-call', data: { tool_call_id: 'call_bob', tool_name: 'send_mail', input: { to: 'bob' } } },
      { event: 'approval-request', data: pending },
      {
        event: 'done',
        data: {
          output: '',
          session_id: done.session_id,
          status: 'requires_approval',
          pending_approvals: [pending],
          metadata: metadata({ tools_used: ['mailer'], tokens: tokens(20, 8) }),
        },
      },
    ]);
    const resumed = await events(approvalPath(agentId, done.session_id, approvalId), { approve: true, stream: true });
    expect(resumed.filter((e) => e.event !== 'text-delta')).toStrictEqual([
      { event: 'tool-result', data: { tool_call_id: 'call_bob', tool_name: 'send_mail', output: 'sent to bob' } },
      {
        event: 'done',
        data: {
          output: 'Done: sent to bob',
          session_id: done.session_id,
          status: 'completed',
          pending_approvals: [],
          metadata: metadata({ tools_used: ['mailer'], tokens: tokens(50, 13) }),
        },
      },
    ]);
    expect(
      resumed
        .filter((e) => e.event === 'text-delta')
        .map((e) => e.data.delta)
        .join(''),
    ).toBe('Done: sent to bob');
    expect(ran.send_mail).toBe(1);
  });

  test('two approvals of one turn: the first answer keeps the run waiting, the second resumes it', async () => {
    const agentId = await mailAgent();
    const paused = await call('POST', `/agents/${agentId}/run`, { input: 'mail bob and ann' });
    const { session_id: sessionId, pending_approvals } = paused.body.data;
    expect(pending_approvals.map((p: { tool_call_id: string }) => p.tool_call_id)).toStrictEqual([
      'call_bob',
      'call_ann',
    ]);
    const [bob, ann] = pending_approvals.map((p: { approval_id: string }) => p.approval_id) as [string, string];
    const first = await call('POST', approvalPath(agentId, sessionId, bob), { approve: true });
    expect([first.body.data.status, first.body.data.pending_approvals, ran.send_mail]).toStrictEqual([
      'requires_approval',
      [pending_approvals[1]],
      0,
    ]);
    const second = await call('POST', approvalPath(agentId, sessionId, ann), { approve: false, reason: 'no' });
    expect([second.body.data.status, second.body.data.output, ran.send_mail]).toStrictEqual([
      'completed',
      'Done: sent to bob, no',
      1,
    ]);
  });

  test('an answer while the resumed run holds the session waits for it, then gets 409; the tool ran once', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    fake.reply(async (request) => {
      const reply = behaviour(request);
      if ('text' in reply && reply.text.startsWith('Done')) await gate;
      return reply;
    });
    const agentId = await mailAgent();
    const paused = await call('POST', `/agents/${agentId}/run`, { input: 'mail bob' });
    const { session_id: sessionId, pending_approvals } = paused.body.data;
    const path = approvalPath(agentId, sessionId, pending_approvals[0].approval_id);
    const first = call('POST', path, { approve: true });
    while (fake.requests.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    const busy = await call('POST', path, { approve: true });
    expect([busy.status, busy.body.code]).toStrictEqual([409, 'conflict']);
    release();
    expect((await first).body.data.output).toBe('Done: sent to bob');
    expect(ran.send_mail).toBe(1);
  });

  test('an approval sent again with its Idempotency-Key gets the first answer; the tool ran once', async () => {
    const agentId = await mailAgent();
    const paused = await call('POST', `/agents/${agentId}/run`, { input: 'mail bob' });
    const { session_id: sessionId, pending_approvals } = paused.body.data;
    const path = approvalPath(agentId, sessionId, pending_approvals[0].approval_id);
    const first = await call('POST', path, { approve: true }, { 'Idempotency-Key': 'approve-1' });
    const replay = await call('POST', path, { approve: true }, { 'Idempotency-Key': 'approve-1' });
    expect([replay.status, replay.body, replay.headers.get('idempotent-replayed')]).toStrictEqual([
      200,
      first.body,
      'true',
    ]);
    expect([first.headers.get('idempotent-replayed'), first.body.data.status, ran.send_mail]).toStrictEqual([
      null,
      'completed',
      1,
    ]);
    const reused = await call('POST', path, { approve: false }, { 'Idempotency-Key': 'approve-1' });
    expect([reused.status, reused.body.code]).toStrictEqual([422, 'idempotency_key_reused']);
    const streamed = await call('POST', path, { approve: true, stream: true }, { 'Idempotency-Key': 'approve-2' });
    expect([streamed.status, streamed.body.code]).toStrictEqual([400, 'invalid_input']);
  });

  test('refusals: a bad body 400, an unknown approval, session, agent or account 404, nothing runs', async () => {
    const agentId = await mailAgent();
    const paused = await call('POST', `/agents/${agentId}/run`, { input: 'mail bob' });
    const { session_id: sessionId, pending_approvals } = paused.body.data;
    const approvalId = pending_approvals[0].approval_id as string;
    const path = approvalPath(agentId, sessionId, approvalId);
    const bad = await Promise.all([
      call('POST', path, {}),
      call('POST', path, { approve: 'yes' }),
      call('POST', path, { approve: true, reason: 'x'.repeat(2001) }),
      call('POST', path, { approve: true, reason: 7 }),
      call('POST', path, { approve: true, stream: 'yes' }),
    ]);
    expect(bad.map((r) => [r.status, r.body.code, Object.keys(r.body.details ?? {})])).toStrictEqual([
      [400, 'invalid_input', ['approve']],
      [400, 'invalid_input', ['approve']],
      [400, 'invalid_input', ['reason']],
      [400, 'invalid_input', ['reason']],
      [400, 'invalid_input', ['stream']],
    ]);
    expect(bad[0]!.body).toStrictEqual({
      success: false,
      error: 'Invalid request format',
      code: 'invalid_input',
      details: { approve: { message: 'approve must be true or false', path: ['approve'] } },
      status: 400,
    });
    const missing = await Promise.all([
      call('POST', approvalPath(agentId, sessionId, 'apr_unknown'), { approve: true }),
      call('POST', approvalPath(agentId, 'no-such-session', approvalId), { approve: true }),
      call('POST', approvalPath('agt_nope', sessionId, approvalId), { approve: 'yes' }),
      call('POST', path, { approve: true }, { 'x-api-key': OTHER }),
    ]);
    expect(missing.map((r) => [r.status, r.body.code])).toStrictEqual([
      [404, 'not_found'],
      [404, 'not_found'],
      [404, 'not_found'],
      [404, 'not_found'],
    ]);
    expect(ran.send_mail).toBe(0);
    // Still pending after all that.
    const session = await call('GET', `/agents/${agentId}/sessions/${sessionId}`);
    expect(session.body.data.pending_approvals).toStrictEqual(pending_approvals);
  });
});
