import { AgentService, combineModels, echoModels, openAIModels, staticTools } from '@agenthost/core';
import { type FakeOpenAIServer, sequentialIds, startFakeOpenAIServer } from '@agenthost/core/test';
import { MemoryStore } from '@agenthost/storage';
import { DefaultChatTransport, readUIMessageStream } from 'ai';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { staticKeys } from './auth.js';
import { type ServedRouter, serveRouter } from './test-served-router.js';
import type { ChatUIMessage } from './ui-message-stream.js';

// The chat route's own fields for the playground: files attached with useChat (UI file parts) become
// the run's input parts, and `version` in the body names the agent's version to run on. Driven by
// the AI SDK's client over real HTTP, against the real OpenAI provider and a loopback fake.
const KEY = 'key-chat-inputs-0123456789abcdef';
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
let fake: FakeOpenAIServer;
let served: ServedRouter;
let base: string;

beforeAll(async () => {
  fake = await startFakeOpenAIServer();
  const models = combineModels(
    echoModels(),
    openAIModels({ apiKey: 'test', baseURL: fake.baseURL, models: ['gpt'], input: ['text', 'image', 'file'] }),
  );
  const service = new AgentService({
    store: new MemoryStore(),
    models,
    tools: staticTools({}),
    generateId: sequentialIds(),
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
  fake.requests.length = 0;
  fake.reply(() => ({ text: 'Seen.', usage: { input: 1, output: 1 } }));
});

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'x-api-key': KEY, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as any };
}

/** Sends one message with useChat's transport and reads the reply as the client builds it. */
async function chat(agentId: string, message: ChatUIMessage, body: object = {}) {
  const transport = new DefaultChatTransport<ChatUIMessage>({
    api: `${base}/agents/${agentId}/chat`,
    headers: { 'x-api-key': KEY },
    body,
  });
  const stream = await transport.sendMessages({
    trigger: 'submit-message',
    chatId: 'chat-1',
    messageId: undefined,
    messages: [message],
    abortSignal: undefined,
  });
  let reply: ChatUIMessage | undefined;
  for await (const state of readUIMessageStream<ChatUIMessage>({ stream })) reply = state;
  return reply!;
}

const agent = async (model = 'gpt') =>
  (await call('POST', '/agents', { name: 'Looker', instruction: 'Look.', model })).body.data.agent_id as string;

describe('the chat route: attached files and the version to run on', () => {
  test('an image attached with useChat reaches the model as an image and is stored with the user message', async () => {
    const agentId = await agent();
    const reply = await chat(agentId, {
      id: 'u1',
      role: 'user',
      parts: [
        { type: 'file', mediaType: 'image/png', filename: 'dot.png', url: `data:image/png;base64,${PNG}` },
        { type: 'text', text: 'What is this?' },
      ],
    });
    expect(reply.parts).toEqual([{ type: 'text', text: 'Seen.', state: 'done' }]);
    expect(fake.requests.map((r) => r.messages.filter((m) => m.role === 'user'))).toStrictEqual([
      [{ role: 'user', content: 'What is this?', media: [{ type: 'image', media_type: 'image/png', data: PNG }] }],
    ]);
    const session = await call('GET', `/agents/${agentId}/sessions/${reply.metadata!.session_id}`);
    expect(session.body.data.messages.map((m: { parts: unknown }) => m.parts)).toStrictEqual([
      [
        { type: 'image', media_type: 'image/png', data: PNG },
        { type: 'text', text: 'What is this?' },
      ],
      [{ type: 'text', text: 'Seen.' }],
    ]);
  });

  test('a text-only model refuses an attached image with a 400 naming the part', async () => {
    const agentId = await agent('echo');
    const res = await fetch(`${base}/agents/${agentId}/chat`, {
      method: 'POST',
      headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
      body: JSON.stringify({
        messages: [
          { role: 'user', parts: [{ type: 'file', mediaType: 'image/png', url: `data:image/png;base64,${PNG}` }] },
        ],
      }),
    });
    const body = (await res.json()) as { code: string; details: Record<string, { path: unknown[] }> };
    expect([res.status, body.code, Object.values(body.details).map((d) => d.path)]).toStrictEqual([
      400,
      'invalid_input',
      [['input', 0]],
    ]);
    expect(fake.requests).toStrictEqual([]);
  });

  test('a file part that is neither a base64 data: URL nor https is a 400; nothing reaches the model', async () => {
    const agentId = await agent();
    const res = await fetch(`${base}/agents/${agentId}/chat`, {
      method: 'POST',
      headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
      body: JSON.stringify({
        messages: [{ role: 'user', parts: [{ type: 'file', mediaType: 'image/png', url: 'http://10.0.0.1/a.png' }] }],
      }),
    });
    expect([res.status, await res.json()]).toStrictEqual([
      400,
      {
        success: false,
        error: 'Invalid request format',
        code: 'invalid_input',
        details: {
          'messages.parts.0': {
            message: 'a file part’s url must be a base64 data: URL or an https URL',
            path: ['messages', 'parts', 0],
          },
        },
        status: 400,
      },
    ]);
    expect(fake.requests).toStrictEqual([]);
  });

  test('`version` in the body runs on that version (its settings reach the model); an unknown one is a 404', async () => {
    const agentId = await agent();
    await call('PATCH', `/agents/${agentId}`, { temperature: 0.5 });
    await call('PATCH', `/agents/${agentId}`, { temperature: 1 });
    const text = (t: string): ChatUIMessage => ({ id: t, role: 'user', parts: [{ type: 'text', text: t }] });
    await chat(agentId, text('on two'), { version: 2 });
    await chat(agentId, text('on the current one'));
    expect(fake.requests.map((r) => r.body.temperature)).toStrictEqual([0.5, 1]);
    const missing = await call('POST', `/agents/${agentId}/chat`, {
      messages: [{ role: 'user', parts: [{ type: 'text', text: 'hi' }] }],
      version: 9,
    });
    expect([missing.status, missing.body.error]).toStrictEqual([404, 'Version not found']);
    const bad = await call('POST', `/agents/${agentId}/chat`, {
      messages: [{ role: 'user', content: 'hi' }],
      version: 0,
    });
    expect([bad.status, bad.body.details]).toStrictEqual([
      400,
      { version: { message: 'version must be a whole number of at least 1', path: ['version'] } },
    ]);
  });
});
