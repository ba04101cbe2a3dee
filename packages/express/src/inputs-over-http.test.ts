import { type AgentConfig, AgentService, combineModels, echoModels, openAIModels } from '@agenthost/core';
import { type FakeOpenAIRequest, type FakeOpenAIServer, startFakeOpenAIServer } from '@agenthost/core/test';
import { MemoryStore } from '@agenthost/storage';
import { afterEach, describe, expect, test } from 'vitest';
import { staticKeys } from './auth.js';
import { openApiDocument } from './openapi.js';
import { type ServedRouter, serveRouter } from './test-served-router.js';

// The real @ai-sdk/openai provider behind the HTTP API, against the loopback fake OpenAI server:
// images and files in a run's input, model settings, and fallback models.
const KEY = 'key-inputs-0123456789abcdef';
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]).toString('base64');
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0]).toString('base64');
const PDF = Buffer.from('%PDF-1.7\n1 0 obj\n').toString('base64');

let fake: FakeOpenAIServer;
let store: MemoryStore;
let served: ServedRouter;
let base: string;

/** `gpt-4o-mini` fails with a 500 when asked `fail`; anything else answers `Reply to: <input>`. */
function behaviour(request: FakeOpenAIRequest) {
  const input = request.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '';
  if (input === 'fail' && request.model === 'gpt-4o-mini')
    return { status: 500, body: { error: { message: 'The server had an error', type: 'server_error' } } };
  return { text: `Reply to: ${input}`, usage: { input: 10, output: 4 } };
}

async function serve(api: 'chat' | 'responses') {
  await stop();
  fake = await startFakeOpenAIServer({ reply: behaviour });
  store = new MemoryStore();
  const models = combineModels(
    echoModels(),
    openAIModels({
      apiKey: 'provider-key',
      baseURL: fake.baseURL,
      api,
      models: ['gpt-4o-mini', 'gpt-4o'],
      input: ['text', 'image', 'file'],
    }),
  );
  const service = new AgentService({ store, models, maxRetries: 0, providerTimeoutMs: 2000 });
  served = await serveRouter(service, { resolveKey: staticKeys([{ account: 'acme', key: KEY }]), bodyLimit: '8mb' });
  base = served.base;
}

async function stop() {
  if (!served?.server.listening) return;
  await served.close();
  await fake.close();
}

afterEach(stop);

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(base + path, {
    method,
    headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

/** An agent of `model` whose stored configuration has `settings` too (as saved by the agents API). */
async function agent(model: string, settings: Partial<AgentConfig> = {}): Promise<string> {
  const created = await call('POST', '/agents', { name: 'A', instruction: 'Be brief.', model, ...settings });
  expect(created.status).toBe(200);
  const record = (await store.getAgent('acme', created.body.data.agent_id))!;
  await store.updateAgent('acme', { ...record, config: { ...record.config, ...settings } });
  return record.agent_id;
}

describe.each(['chat', 'responses'] as const)('an image in the input (OpenAI %s API)', (api) => {
  test('reaches the provider as an image part; the session keeps the message with its parts', async () => {
    await serve(api);
    const id = await agent('gpt-4o-mini');
    const input = [
      { type: 'text', text: 'What is this?' },
      { type: 'image', media_type: 'image/png', data: PNG },
    ];
    const res = await call('POST', `/agents/${id}/run`, { input, session_id: 's' });
    expect([res.status, res.body.data.output, res.body.data.metadata.model]).toStrictEqual([
      200,
      'Reply to: What is this?',
      'gpt-4o-mini',
    ]);
    expect(fake.requests.map((r) => r.messages.at(-1))).toStrictEqual([
      { role: 'user', content: 'What is this?', media: [{ type: 'image', media_type: 'image/png', data: PNG }] },
    ]);
    const session = await call('GET', `/agents/${id}/sessions/s`);
    expect(session.body.data.messages[0]).toStrictEqual({
      role: 'user',
      content: 'What is this?',
      parts: input,
      created_at: expect.any(String),
    });
  });

  test('an https image URL is passed to the provider as a URL, never fetched by the server', async () => {
    await serve(api);
    const id = await agent('gpt-4o-mini');
    const url = 'https://images.example.invalid/cat.jpg';
    const res = await call('POST', `/agents/${id}/run`, { input: [{ type: 'image', media_type: 'image/jpeg', url }] });
    expect(res.status).toBe(200);
    expect(fake.requests[0]?.messages.at(-1)?.media).toStrictEqual([{ type: 'image', url }]);
  });
});

describe('files in the input', () => {
  test('a PDF as data reaches the Responses API as a file with its name', async () => {
    await serve('responses');
    const id = await agent('gpt-4o-mini');
    const input = [
      { type: 'text', text: 'Summarise' },
      { type: 'file', media_type: 'application/pdf', filename: 'report.pdf', data: PDF },
    ];
    expect((await call('POST', `/agents/${id}/run`, { input })).status).toBe(200);
    expect(fake.requests[0]?.messages.at(-1)?.media).toStrictEqual([
      { type: 'file', media_type: 'application/pdf', data: PDF, filename: 'report.pdf' },
    ]);
  });

  test('a PDF by URL the provider would need fetched: 400 asking for the bytes, and nothing fetched or sent', async () => {
    await serve('chat');
    const id = await agent('gpt-4o-mini');
    const res = await call('POST', `/agents/${id}/run`, {
      input: [{ type: 'file', media_type: 'application/pdf', url: 'https://169.254.169.254/latest/doc.pdf' }],
    });
    const error =
      'The model "gpt-4o-mini" cannot read https://169.254.169.254/… by URL, and the server does not fetch URLs; send the bytes as base64 data instead';
    expect(res).toStrictEqual({
      status: 400,
      body: {
        success: false,
        error,
        code: 'invalid_input',
        details: { input: { message: error, path: ['input'] } },
        status: 400,
      },
    });
    expect(fake.requests).toHaveLength(0);
  });
});

describe('a part the provider package cannot send', () => {
  test('a text file on Chat Completions: 400 naming the model, no provider call, no fallback', async () => {
    await serve('chat');
    const id = await agent('gpt-4o-mini', { fallback_models: ['gpt-4o'] });
    const input = [{ type: 'file', media_type: 'text/plain', data: Buffer.from('notes').toString('base64') }];
    const res = await call('POST', `/agents/${id}/run`, { input });
    const error =
      'The model "gpt-4o-mini" cannot take this input: file part media type text/plain is not supported by its provider';
    expect(res).toStrictEqual({
      status: 400,
      body: {
        success: false,
        error,
        code: 'invalid_input',
        details: { input: { message: error, path: ['input'] } },
        status: 400,
      },
    });
    expect(fake.requests).toHaveLength(0);
  });
});

describe('bad parts: 400 invalid_input naming the part', () => {
  const cases: [string, unknown, string, (string | number)[]][] = [
    [
      'a text-only model (echo) and an image',
      [
        { type: 'text', text: 'see' },
        { type: 'image', media_type: 'image/png', data: PNG },
      ],
      'The model "echo" cannot read images; send text, or use a model that reads images',
      ['input', 1],
    ],
    [
      'bytes that are not the media type',
      [{ type: 'image', media_type: 'image/png', data: JPEG }],
      'data is not image/png: its bytes do not match the media type',
      ['input', 0, 'data'],
    ],
    [
      'an http URL',
      [{ type: 'image', media_type: 'image/png', url: 'http://images.example/a.png' }],
      'url must be an https URL',
      ['input', 0, 'url'],
    ],
    [
      'both url and data',
      [{ type: 'image', media_type: 'image/png', url: 'https://images.example/a.png', data: PNG }],
      'a image part needs exactly one of url or data',
      ['input', 0],
    ],
    [
      'a part over 5 MiB',
      [{ type: 'file', media_type: 'text/plain', data: Buffer.alloc(5 * 1024 * 1024 + 1, 0x61).toString('base64') }],
      'data must be at most 5242880 bytes (decoded)',
      ['input', 0, 'data'],
    ],
    [
      'a media type not offered',
      [{ type: 'file', media_type: 'application/x-msdownload', data: PNG }],
      'media_type must be one of application/pdf, text/plain, text/markdown, text/csv, application/json',
      ['input', 0, 'media_type'],
    ],
  ];

  test.each(cases)('%s', async (_name, input, error, path) => {
    await serve('chat');
    const model = path.length === 2 && path[1] === 1 ? 'echo' : 'gpt-4o-mini';
    const id = await agent(model);
    const res = await call('POST', `/agents/${id}/run`, { input, session_id: 's' });
    expect(res).toStrictEqual({
      status: 400,
      body: {
        success: false,
        error: expect.any(String),
        code: 'invalid_input',
        details: { input: { message: error, path } },
        status: 400,
      },
    });
    expect(fake.requests).toHaveLength(0);
    expect((await call('GET', `/agents/${id}/sessions/s`)).status).toBe(404);
  });
});

describe('model settings and fallback models', () => {
  test('temperature, top_p and max_output_tokens reach the provider’s request', async () => {
    await serve('chat');
    const id = await agent('gpt-4o-mini', { temperature: 0.3, top_p: 0.8, max_output_tokens: 256 });
    expect((await call('POST', `/agents/${id}/run`, { input: 'hi' })).status).toBe(200);
    const { temperature, top_p, max_tokens } = fake.requests[0]!.body;
    expect({ temperature, top_p, max_tokens }).toStrictEqual({ temperature: 0.3, top_p: 0.8, max_tokens: 256 });

    await serve('responses');
    const id2 = await agent('gpt-4o-mini', { temperature: 0, max_output_tokens: 64 });
    expect((await call('POST', `/agents/${id2}/run`, { input: 'hi' })).status).toBe(200);
    const sent = fake.requests[0]!.body;
    expect([sent.temperature, sent.top_p, sent.max_output_tokens]).toStrictEqual([0, undefined, 64]);
  });

  test.each([false, true])('a 500 of the model makes the fallback answer (streamed: %s)', async (stream) => {
    await serve('chat');
    const id = await agent('gpt-4o-mini', { fallback_models: ['gpt-4o'] });
    const res = await fetch(`${base}/agents/${id}/run`, {
      method: 'POST',
      headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ input: 'fail', session_id: 's', stream }),
    });
    const text = await res.text();
    const result = stream
      ? JSON.parse(/event: done\ndata: (.*)/.exec(text)![1]!)
      : (JSON.parse(text) as { data: any }).data;
    expect([res.status, result.output, result.metadata.model]).toStrictEqual([200, 'Reply to: fail', 'gpt-4o']);
    expect(fake.requests.map((r) => r.model)).toStrictEqual(['gpt-4o-mini', 'gpt-4o']);
    const messages = (await call('GET', `/agents/${id}/sessions/s`)).body.data.messages;
    expect(messages.map((m: { content: string }) => m.content)).toStrictEqual(['fail', 'Reply to: fail']);
  });
});

describe('the OpenAPI document', () => {
  test('shows a run input as a string or a list of text, image and file parts', () => {
    const document = openApiDocument() as { components: { schemas: Record<string, any> } };
    const input = document.components.schemas.RunAgentInput.properties.input;
    expect(input.anyOf.map((s: { type: string }) => s.type)).toStrictEqual(['string', 'array']);
    const parts = input.anyOf[1].items.oneOf;
    expect(parts.map((p: any) => [p.properties.type.const, p.required])).toStrictEqual([
      ['text', ['type', 'text']],
      ['image', ['type', 'media_type']],
      ['file', ['type', 'media_type']],
    ]);
    expect(parts[1].properties.media_type.enum).toStrictEqual(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
    expect(input.description).toContain('never fetched by the server');
  });
});
