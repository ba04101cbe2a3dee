import { AgentService, openAIModels, staticTools } from '@agenthost/core';
import { type FakeOpenAIRequest, type FakeOpenAIServer, startFakeOpenAIServer } from '@agenthost/core/test';
import { MemoryStore } from '@agenthost/storage';
import {
  AbstractChat,
  type ChatState,
  type ChatStatus,
  DefaultChatTransport,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  tool,
} from 'ai';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { z } from 'zod';
import { staticKeys } from './auth.js';
import { type ServedRouter, serveRouter } from './test-served-router.js';
import type { ChatUIMessage } from './ui-message-stream.js';

// The chat route's approvals driven by the AI SDK's own chat client (what `useChat` runs, without
// React): the run pauses on a tool call that needs approval, `addToolApprovalResponse` answers it,
// and the client sends the follow-up by itself (`lastAssistantMessageIsCompleteWithApprovalResponses`).
const KEY = 'key-chat-approvals-0123456789';
let fake: FakeOpenAIServer;
let served: ServedRouter;
let base: string;
let sent: string[];

function behaviour(request: FakeOpenAIRequest) {
  const at = request.messages.findLastIndex((m) => m.role === 'user');
  const results = request.messages.slice(at + 1).filter((m) => m.role === 'tool');
  if (results.length > 0) return { text: `Done: ${results.map((m) => m.content).join(', ')}` };
  const names = request.messages[at]!.content.replace(/^mail /, '').split(' and ');
  return { toolCalls: names.map((to) => ({ name: 'send_mail', arguments: { to }, id: `call_${to}` })) };
}

beforeAll(async () => {
  fake = await startFakeOpenAIServer({ reply: behaviour });
  const tools = staticTools({
    mailer: {
      send_mail: tool({
        description: 'Sends a mail',
        inputSchema: z.object({ to: z.string() }),
        execute: async ({ to }) => {
          sent.push(to);
          return `sent to ${to}`;
        },
      }),
    },
  });
  const service = new AgentService({
    store: new MemoryStore(),
    models: openAIModels({ apiKey: 'test', baseURL: fake.baseURL, models: ['gpt'] }),
    tools,
    maxRetries: 0,
  });
  served = await serveRouter(service, {
    resolveKey: staticKeys([{ account: 'acme', key: KEY }]),
    logger: { error: () => {} },
  });
  base = served.base;
});

afterAll(async () => {
  await served.close();
  await fake.close();
});

beforeEach(() => {
  sent = [];
  fake.requests.length = 0;
});

/** `useChat`'s state, without React: plain arrays. */
function plainState(): ChatState<ChatUIMessage> {
  return {
    status: 'ready' as ChatStatus,
    error: undefined,
    messages: [],
    pushMessage(message) {
      this.messages = [...this.messages, message];
    },
    popMessage() {
      this.messages = this.messages.slice(0, -1);
    },
    replaceMessage(index, message) {
      this.messages = this.messages.map((m, i) => (i === index ? message : m));
    },
    snapshot: (thing) => structuredClone(thing),
  };
}

class TestChat extends AbstractChat<ChatUIMessage> {
  constructor(agentId: string, errors: Error[]) {
    super({
      state: plainState(),
      transport: new DefaultChatTransport<ChatUIMessage>({
        api: `${base}/agents/${agentId}/chat`,
        headers: { 'x-api-key': KEY },
      }),
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
      onError: (error) => errors.push(error),
    });
  }
}

async function createAgent(): Promise<string> {
  const res = await fetch(`${base}/agents`, {
    method: 'POST',
    headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
    body: JSON.stringify({
      name: 'Mailer',
      instruction: 'Be brief.',
      model: 'gpt',
      tools: ['mailer'],
      require_approval: ['mailer'],
    }),
  });
  return ((await res.json()) as { data: { agent_id: string } }).data.agent_id;
}

/** Waits until the chat has stopped streaming and `done` holds. */
async function settled(chat: TestChat, done: () => boolean) {
  for (let i = 0; i < 200 && !(chat.status === 'ready' && done()); i++) await new Promise((r) => setTimeout(r, 10));
}

const toolPart = (chat: TestChat) => chat.lastMessage!.parts.find((part) => part.type === 'tool-send_mail') as any;

describe('approvals with the AI SDK chat client', () => {
  test.each([
    { approved: true, reason: undefined, state: 'output-available', text: 'Done: sent to bob', sent: ['bob'] },
    { approved: false, reason: 'not today', state: 'output-denied', text: 'Done: not today', sent: [] },
  ])('the run pauses for approval; addToolApprovalResponse (approved: $approved) resumes it', async (answer) => {
    const errors: Error[] = [];
    const chat = new TestChat(await createAgent(), errors);
    await chat.sendMessage({ text: 'mail bob' });
    const paused = toolPart(chat);
    // The AI SDK's client leaves optional fields of its parts as undefined: compared as equal to absent.
    expect(paused).toEqual({
      type: 'tool-send_mail',
      toolCallId: 'call_bob',
      state: 'approval-requested',
      input: { to: 'bob' },
      approval: { id: expect.any(String) },
    });
    expect(chat.lastMessage!.metadata).toStrictEqual({
      session_id: expect.any(String),
      model: 'gpt',
      tokens: expect.any(Object),
      cost: null,
      status: 'requires_approval',
    });
    expect(sent).toStrictEqual([]);

    await chat.addToolApprovalResponse({ id: paused.approval.id, approved: answer.approved, reason: answer.reason });
    await settled(chat, () => chat.lastMessage!.parts.some((part) => part.type === 'text'));
    expect(errors).toStrictEqual([]);
    // The resumed run goes on in the same assistant message.
    expect(chat.messages.map((m) => m.role)).toStrictEqual(['user', 'assistant']);
    expect(chat.lastMessage!.parts.filter((part) => part.type !== 'step-start')).toEqual([
      {
        type: 'tool-send_mail',
        toolCallId: 'call_bob',
        state: answer.state,
        input: { to: 'bob' },
        ...(answer.approved && { output: 'sent to bob' }),
        approval: {
          id: paused.approval.id,
          approved: answer.approved,
          ...(answer.reason !== undefined && { reason: answer.reason }),
        },
      },
      { type: 'text', text: answer.text, state: 'done' },
    ]);
    expect(chat.lastMessage!.metadata?.status).toBe('completed');
    expect(sent).toStrictEqual(answer.sent);
    // The model was told the reason of a denial as the tool's result.
    expect(fake.requests.at(-1)!.messages.at(-1)).toStrictEqual({
      role: 'tool',
      content: answer.approved ? 'sent to bob' : 'not today',
    });
  });

  test('two calls wait: the client sends both answers at once; one runs, the other is denied', async () => {
    const errors: Error[] = [];
    const chat = new TestChat(await createAgent(), errors);
    await chat.sendMessage({ text: 'mail bob and ann' });
    const parts = chat.lastMessage!.parts.filter((part) => part.type === 'tool-send_mail') as any[];
    expect(parts.map((part) => [part.toolCallId, part.state])).toStrictEqual([
      ['call_bob', 'approval-requested'],
      ['call_ann', 'approval-requested'],
    ]);
    await chat.addToolApprovalResponse({ id: parts[0].approval.id, approved: true });
    // One of two answered: the client waits for the other before it sends anything.
    expect(fake.requests).toHaveLength(1);
    await chat.addToolApprovalResponse({ id: parts[1].approval.id, approved: false, reason: 'not ann' });
    await settled(chat, () => chat.lastMessage!.parts.some((part) => part.type === 'text'));
    expect(errors).toStrictEqual([]);
    expect(chat.messages.map((m) => m.role)).toStrictEqual(['user', 'assistant']);
    expect(
      chat.lastMessage!.parts.map((part: any) => [part.type, part.toolCallId ?? part.text, part.state]),
    ).toStrictEqual([
      ['tool-send_mail', 'call_bob', 'output-available'],
      ['tool-send_mail', 'call_ann', 'output-denied'],
      ['text', 'Done: sent to bob, not ann', 'done'],
    ]);
    expect(sent).toStrictEqual(['bob']);
    expect(fake.requests).toHaveLength(2);
  });

  test('a follow-up whose approvals are answered already gets 404; one with no session id gets 400', async () => {
    const errors: Error[] = [];
    const agentId = await createAgent();
    const chat = new TestChat(agentId, errors);
    await chat.sendMessage({ text: 'mail ann' });
    const paused = toolPart(chat);
    await chat.addToolApprovalResponse({ id: paused.approval.id, approved: true });
    await settled(chat, () => chat.lastMessage!.parts.some((part) => part.type === 'text'));
    const [user, assistant] = chat.messages;
    const responded = {
      ...assistant!,
      parts: [{ ...paused, state: 'approval-responded', approval: { id: paused.approval.id, approved: true } }],
    };
    const post = (body: unknown) =>
      fetch(`${base}/agents/${agentId}/chat`, {
        method: 'POST',
        headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then(async (res) => [res.status, await res.json()]);
    expect(await post({ messages: [user, responded] })).toStrictEqual([
      404,
      { success: false, error: expect.any(String), code: 'not_found', status: 404 },
    ]);
    expect(await post({ messages: [user, { ...responded, metadata: undefined }] })).toStrictEqual([
      400,
      {
        success: false,
        error: 'Invalid request format',
        code: 'invalid_input',
        details: {
          session_id: {
            message: 'session_id is required to answer approvals: send the session the approvals belong to',
            path: ['session_id'],
          },
        },
        status: 400,
      },
    ]);
    const badReason = { ...responded.parts[0], approval: { id: 'x', approved: true, reason: 5 } };
    const [status, body] = await post({ messages: [user, { ...responded, parts: [badReason] }] });
    expect([status, (body as { details: unknown }).details]).toStrictEqual([
      400,
      {
        messages: {
          message: 'messages.1.parts.0.approval.reason reason must be a string',
          path: ['messages', 1, 'parts', 0, 'approval', 'reason'],
        },
      },
    ]);
    const many = Array.from({ length: 65 }, (_, i) => ({ ...responded.parts[0], toolCallId: `call_${i}` }));
    const [tooMany, manyBody] = await post({ messages: [user, { ...responded, parts: many }] });
    expect([tooMany, (manyBody as { details: unknown }).details]).toStrictEqual([
      400,
      { messages: { message: 'at most 64 approvals may be answered at once', path: ['messages', 1] } },
    ]);
    expect(sent).toStrictEqual(['ann']);
  });
});
