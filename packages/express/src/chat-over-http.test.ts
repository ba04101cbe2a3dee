import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AgentService, combineModels, echoModels, openAIModels, staticTools } from '@agenthost/core';
import { type FakeOpenAIServer, sequentialIds, startFakeOpenAIServer } from '@agenthost/core/test';
import { MemoryStore } from '@agenthost/storage';
import { DefaultChatTransport, readUIMessageStream, type UIMessageChunk } from 'ai';
import express from 'express';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { addTool } from './add-tool-fixture.js';
import { staticKeys } from './auth.js';
import { createAgentRouter } from './router.js';
import type { ChatUIMessage } from './ui-message-stream.js';

// The chat route driven by the AI SDK's own client code (DefaultChatTransport, readUIMessageStream)
// over real HTTP, against the real OpenAI provider talking to a loopback fake that calls a tool.
const KEY = 'key-chat-0123456789abcdef';
let fake: FakeOpenAIServer;
let server: Server;
let base: string;
let store: MemoryStore;

beforeAll(async () => {
  fake = await startFakeOpenAIServer();
  store = new MemoryStore();
  const models = combineModels(echoModels(), openAIModels({ apiKey: 'test', baseURL: fake.baseURL, models: ['gpt'] }));
  const tools = staticTools({
    calculator: {
      add: addTool(),
    },
  });
  const service = new AgentService({ store, models, tools, generateId: sequentialIds(), maxRetries: 0 });
  const router = createAgentRouter(service, {
    resolveKey: staticKeys([{ account: 'acme', key: KEY }]),
    logger: { error: () => {} },
  });
  const app = express();
  app.use('/api/v1', router, router.errorHandler);
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await fake.close();
});

beforeEach(() => {
  fake.requests.length = 0;
});

async function createAgent(model: string, tool: string | null = 'calculator'): Promise<string> {
  const res = await fetch(`${base}/agents`, {
    method: 'POST',
    headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Chat', instruction: 'Be brief.', model, tool }),
  });
  return ((await res.json()) as { data: { agent_id: string } }).data.agent_id;
}

const userMessage = (id: string, text: string): ChatUIMessage => ({
  id,
  role: 'user',
  parts: [{ type: 'text', text }],
});

/** Sends `messages` with the AI SDK's transport; `body` rides along as `useChat` would send it. */
function send(agentId: string, messages: ChatUIMessage[], body: object = {}, key = KEY) {
  const transport = new DefaultChatTransport<ChatUIMessage>({
    api: `${base}/agents/${agentId}/chat`,
    headers: { 'x-api-key': key },
    body,
  });
  return transport.sendMessages({
    trigger: 'submit-message',
    chatId: 'chat-1',
    messageId: undefined,
    messages,
    abortSignal: undefined,
  });
}

/** The assistant message as the AI SDK's client builds it from the stream, and the errors it saw. */
async function lastMessage(stream: ReadableStream<UIMessageChunk>) {
  const errors: unknown[] = [];
  let message: ChatUIMessage | undefined;
  for await (const state of readUIMessageStream<ChatUIMessage>({ stream, onError: (e) => errors.push(e) }))
    message = state;
  return { message: message!, errors };
}

describe('the chat route with the AI SDK client', () => {
  test('streams text, tool parts and usage metadata; a second message continues the session', async () => {
    fake.reply((request) =>
      request.messages.some((m) => m.role === 'tool')
        ? { text: 'The sum is 5.', usage: { input: 20, output: 5 } }
        : { toolCalls: [{ name: 'add', arguments: { a: 2, b: 3 } }], usage: { input: 10, output: 3 } },
    );
    const agentId = await createAgent('gpt');
    const first = await lastMessage(await send(agentId, [userMessage('u1', 'What is 2 + 3?')]));
    expect(first.errors).toEqual([]);
    const sessionId = first.message.metadata!.session_id;
    expect(first.message).toEqual({
      id: expect.any(String),
      role: 'assistant',
      metadata: {
        session_id: sessionId,
        model: 'gpt',
        tokens: { prompt: 30, completion: 8, total: 38 },
        cost: null,
        status: 'completed',
      },
      parts: [
        {
          type: 'tool-add',
          toolCallId: expect.any(String),
          state: 'output-available',
          input: { a: 2, b: 3 },
          output: 5,
        },
        { type: 'text', text: 'The sum is 5.', state: 'done' },
      ],
    });

    fake.reply((request) => ({ text: `Heard ${request.messages.length} messages`, usage: { input: 1, output: 1 } }));
    const history = [userMessage('u1', 'What is 2 + 3?'), first.message, userMessage('u2', 'And again?')];
    const second = await lastMessage(await send(agentId, history, { session_id: sessionId }));
    expect(second.message.parts).toEqual([{ type: 'text', text: 'Heard 6 messages', state: 'done' }]);
    expect(second.message.metadata?.session_id).toBe(sessionId);
    // The provider saw the stored first turn (not the client's copy), its tool call and result
    // included, then the new input.
    expect(fake.requests.at(-1)!.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'What is 2 + 3?' },
      { role: 'assistant', content: 'call add({"a":2,"b":3})' },
      { role: 'tool', content: '5' },
      { role: 'assistant', content: 'The sum is 5.' },
      { role: 'user', content: 'And again?' },
    ]);
  });

  test('the x-session-id header names the session when the body does not', async () => {
    const agentId = await createAgent('echo', null);
    const first = await lastMessage(await send(agentId, [userMessage('u1', 'one')]));
    const sessionId = first.message.metadata!.session_id;
    const transport = new DefaultChatTransport<ChatUIMessage>({
      api: `${base}/agents/${agentId}/chat`,
      headers: { 'x-api-key': KEY, 'x-session-id': sessionId },
    });
    const stream = await transport.sendMessages({
      trigger: 'submit-message',
      chatId: 'chat-1',
      messageId: undefined,
      messages: [userMessage('u2', 'two')],
      abortSignal: undefined,
    });
    const second = await lastMessage(stream);
    expect(second.message.metadata?.session_id).toBe(sessionId);
    const session = await fetch(`${base}/agents/${agentId}/sessions/${sessionId}`, { headers: { 'x-api-key': KEY } });
    const { data } = (await session.json()) as { data: { messages: { content: string }[] } };
    expect(data.messages.map((m) => m.content)).toEqual(['one', 'Echo: one', 'two', 'Echo: two']);
  });

  test('a provider failing mid-stream ends the stream with an error part, and nothing is stored', async () => {
    fake.reply(() => ({ text: 'cut off here', unfinished: true }));
    const agentId = await createAgent('gpt', null);
    const { message, errors } = await lastMessage(await send(agentId, [userMessage('u1', 'Hi')]));
    expect(errors).toEqual([new Error('The model provider failed to answer')]);
    const sessionId = message.metadata!.session_id;
    const sessions = await fetch(`${base}/agents/${agentId}/sessions`, { headers: { 'x-api-key': KEY } });
    expect(((await sessions.json()) as { data: { sessions: unknown[] } }).data.sessions).toEqual([]);
    expect(sessionId).toMatch(/^ses/);
  });

  test('a client that disconnects mid-stream aborts the model call; nothing is stored and the session is free', async () => {
    const agentId = await createAgent('gpt', null);
    fake.reply(() => ({ text: 'one two three four five six', chunkDelayMs: 150, usage: { input: 1, output: 6 } }));
    const controller = new AbortController();
    const res = await fetch(`${base}/agents/${agentId}/chat`, {
      method: 'POST',
      headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [userMessage('u1', 'slow')], session_id: 's-abort' }),
      signal: controller.signal,
    });
    const reader = res.body!.getReader();
    let seen = '';
    while (!seen.includes('text-delta')) seen += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    fake.reply(() => ({ text: 'done', usage: { input: 1, output: 1 } }));
    let next: { message: ChatUIMessage; errors: unknown[] } | undefined;
    for (let i = 0; i < 50 && next?.message.metadata?.tokens === undefined; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      next = await lastMessage(await send(agentId, [userMessage('u2', 'next')], { session_id: 's-abort' }));
    }
    const session = await fetch(`${base}/agents/${agentId}/sessions/s-abort`, { headers: { 'x-api-key': KEY } });
    const { data } = (await session.json()) as { data: { messages: { content: string }[] } };
    expect(data.messages.map((m) => m.content)).toEqual(['next', 'done']);
    expect(fake.requests.map((r) => [r.messages.at(-1)?.content, r.completed])).toEqual([
      ['slow', false],
      ['next', true],
    ]);
  });

  test('the truffle-ai shape: the earlier messages are the history of a new session; JSON answer', async () => {
    fake.reply((request) => ({ text: `Heard ${request.messages.length}`, usage: { input: 2, output: 1 } }));
    const agentId = await createAgent('gpt', null);
    const res = await fetch(`${base}/agents/${agentId}/chat`, {
      method: 'POST',
      headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
      body: JSON.stringify({
        messages: [
          { role: 'system', content: 'ignored' },
          { role: 'user', content: 'one' },
          { role: 'assistant', content: 'first' },
          { role: 'user', content: 'two' },
        ],
      }),
    });
    const body = (await res.json()) as { data: { session_id: string } };
    expect([res.status, body]).toEqual([
      200,
      {
        success: true,
        data: {
          message: 'Heard 4',
          session_id: body.data.session_id,
          status: 'completed',
          pending_approvals: [],
          metadata: {
            model: 'gpt',
            agent_version: 1,
            tool_used: null,
            tools_used: [],
            tokens: { prompt: 2, completion: 1, total: 3 },
            omitted_messages: 0,
          },
        },
        status: 200,
        message: 'Heard 4',
        session_id: body.data.session_id,
      },
    ]);
    expect(fake.requests.at(-1)!.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'one' },
      { role: 'assistant', content: 'first' },
      { role: 'user', content: 'two' },
    ]);
  });

  test('Idempotency-Key: a JSON chat is replayed, a streamed chat refuses it', async () => {
    fake.reply(() => ({ text: 'once', usage: { input: 1, output: 1 } }));
    const agentId = await createAgent('gpt', null);
    const post = (body: object) =>
      fetch(`${base}/agents/${agentId}/chat`, {
        method: 'POST',
        headers: { 'x-api-key': KEY, 'content-type': 'application/json', 'idempotency-key': 'chat-key-1' },
        body: JSON.stringify(body),
      });
    const truffle = { messages: [{ role: 'user', content: 'Hi' }] };
    const first = await post(truffle);
    const again = await post(truffle);
    expect([first.status, again.status, again.headers.get('idempotent-replayed')]).toEqual([200, 200, 'true']);
    expect(await again.json()).toEqual(await first.json());
    expect(fake.requests).toHaveLength(1);
    const streamed = await post({ messages: [userMessage('u1', 'Hi')] });
    expect([streamed.status, await streamed.json()]).toEqual([
      400,
      {
        success: false,
        error: 'Idempotency-Key is not supported for streamed chats',
        code: 'invalid_input',
        status: 400,
      },
    ]);
  });

  test('failures before the stream are JSON envelopes with their status', async () => {
    const agentId = await createAgent('echo', null);
    const answer = async (id: string, messages: unknown[], key = KEY) => {
      const res = await fetch(`${base}/agents/${id}/chat`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ id: 'chat-1', trigger: 'submit-message', messages }),
      });
      return { status: res.status, type: res.headers.get('content-type'), body: await res.json() };
    };
    const hello = [userMessage('u1', 'Hello')];
    expect(await answer(agentId, hello, 'wrong-key-0123456789')).toEqual({
      status: 401,
      type: 'application/json; charset=utf-8',
      body: { success: false, error: 'Invalid API key provided', code: 'unauthenticated', status: 401 },
    });
    expect(await answer('agt_missing', hello)).toEqual({
      status: 404,
      type: 'application/json; charset=utf-8',
      body: { success: false, error: 'Agent not found', code: 'not_found', status: 404 },
    });
    expect(await answer(agentId, [{ id: 'u1', role: 'user', parts: [{ type: 'reasoning', text: 'hm' }] }])).toEqual({
      status: 400,
      type: 'application/json; charset=utf-8',
      body: {
        success: false,
        error: 'Invalid request format',
        code: 'invalid_input',
        details: { messages: { message: 'messages must end with a user message with text', path: ['messages'] } },
        status: 400,
      },
    });
    // A file part is input (chat-inputs-over-http.test.ts): one without its type and URL is refused.
    expect(await answer(agentId, [{ id: 'u1', role: 'user', parts: [{ type: 'file' }] }])).toEqual({
      status: 400,
      type: 'application/json; charset=utf-8',
      body: {
        success: false,
        error: 'Invalid request format',
        code: 'invalid_input',
        details: {
          'messages.parts.0': {
            message: 'a file part must have a mediaType and a url',
            path: ['messages', 'parts', 0],
          },
        },
        status: 400,
      },
    });
    // A reply is not regenerated from the client's copy of the conversation: that would store its turn twice.
    const answered = [...hello, { id: 'a1', role: 'assistant', parts: [{ type: 'text', text: 'Hi' }] }];
    expect(((await answer(agentId, answered)).body as { details: unknown }).details).toStrictEqual({
      messages: { message: 'messages must end with a user message with text', path: ['messages'] },
    });
    const regenerate = await fetch(`${base}/agents/${agentId}/chat`, {
      method: 'POST',
      headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'chat-1', trigger: 'regenerate-message', messages: hello }),
    });
    const refused = (await regenerate.json()) as { details: { trigger: { message: string } } };
    expect([regenerate.status, refused.details.trigger.message]).toStrictEqual([
      400,
      'trigger must be "submit-message": a reply is regenerated by sending the user message again',
    ]);
    await expect(send(agentId, hello, {}, 'wrong-key-0123456789')).rejects.toThrow('Invalid API key provided');
  });
});
