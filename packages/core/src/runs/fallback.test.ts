import { MemoryStore } from '@agenthost/storage';
import { APICallError, type LanguageModelV4CallOptions, type LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { convertArrayToReadableStream, MockLanguageModelV4 } from 'ai/test';
import { beforeEach, describe, expect, test } from 'vitest';
import { AgentService, type AgentServiceOptions } from '../agent-service.js';
import type { ChatModel } from '../ports/model-provider.js';
import type { AgentConfig, RunEvent } from '../records.js';
import { mockModels } from '../testing/mock-models.js';
import { agentHostError as rejection } from '../testing/rejection.js';
import { sequentialIds, testClock } from '../testing/test-clock.js';
import type { RunObservation } from './run-observer.js';

const ACME = 'acme';
let store: MemoryStore;
let observed: RunObservation[];

const usage = (input: number, output: number) => ({
  inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: output, text: output, reasoning: 0 },
});

const serverError = () =>
  new APICallError({
    message: 'upstream failed',
    url: 'https://api.example/v1',
    requestBodyValues: {},
    statusCode: 500,
    isRetryable: false,
  });

/** A model that fails every call with `error` (plain, or before its stream's first part). */
function failing(error: () => Error): MockLanguageModelV4 {
  return new MockLanguageModelV4({
    doGenerate: async () => {
      throw error();
    },
    doStream: async () => {
      throw error();
    },
  });
}

/** A model that answers `text` (streamed word by word). */
function answering(text: string): MockLanguageModelV4 {
  const parts: LanguageModelV4StreamPart[] = [
    { type: 'stream-start', warnings: [] },
    { type: 'text-start', id: 't' },
    ...text
      .split(' ')
      .map((w, i): LanguageModelV4StreamPart => ({ type: 'text-delta', id: 't', delta: i ? ` ${w}` : w })),
    { type: 'text-end', id: 't' },
    { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: usage(3, 2) },
  ];
  return new MockLanguageModelV4({
    doGenerate: async () => ({
      content: [{ type: 'text', text }],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: usage(3, 2),
      warnings: [],
    }),
    doStream: async () => ({ stream: convertArrayToReadableStream(parts) }),
  });
}

function service(models: Record<string, ChatModel | string>, options: Partial<AgentServiceOptions> = {}) {
  return new AgentService({
    store,
    models: mockModels(models, { input: { vision: ['text', 'image', 'file'], backup: ['text', 'image', 'file'] } }),
    now: testClock(),
    generateId: sequentialIds(),
    maxRetries: 0,
    onRunFinished: (o) => observed.push(o),
    ...options,
  });
}

/** An agent of `model` whose stored configuration also has `settings` (as a saved agent would). */
async function agentWith(svc: AgentService, model: string, settings: Partial<AgentConfig>): Promise<string> {
  const agent = await svc.createAgent(ACME, { name: 'A', instruction: 'Be brief.', model });
  await store.updateAgent(ACME, { ...agent, config: { ...agent.config, ...settings } });
  return agent.agent_id;
}

async function collect(events: AsyncIterable<RunEvent>): Promise<RunEvent[]> {
  const out: RunEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}

beforeEach(() => {
  store = new MemoryStore();
  observed = [];
});

describe('fallback models', () => {
  test('a provider error of the model makes the next fallback answer; metadata and the observer say so', async () => {
    const svc = service({ main: failing(serverError), dead: failing(serverError), backup: answering('From backup') });
    const id = await agentWith(svc, 'main', { fallback_models: ['dead', 'backup'] });
    const result = await svc.runAgent(ACME, id, { input: 'hi', session_id: 's' });
    expect(result.output).toBe('From backup');
    expect(result.metadata.model).toBe('backup');
    expect(observed.map(({ model, outcome }) => ({ model, outcome }))).toStrictEqual([
      { model: 'main', outcome: 'provider_error' },
      { model: 'dead', outcome: 'provider_error' },
      { model: 'backup', outcome: 'ok' },
    ]);
    const stored = await store.readMessages({ accountId: ACME, agentId: id, sessionId: 's' });
    expect(stored.map((m) => m.content)).toStrictEqual(['hi', 'From backup']);
  });

  test('a rate limited model falls back too', async () => {
    const limited = () =>
      new APICallError({
        message: 'slow down',
        url: 'https://api.example/v1',
        requestBodyValues: {},
        statusCode: 429,
        isRetryable: false,
      });
    const svc = service({ main: failing(limited), backup: answering('ok') });
    const id = await agentWith(svc, 'main', { fallback_models: ['backup'] });
    expect((await svc.runAgent(ACME, id, { input: 'hi' })).metadata.model).toBe('backup');
    expect(observed.map((o) => o.outcome)).toStrictEqual(['provider_rate_limited', 'ok']);
  });

  test('when every model fails, the last failure is the run’s; each model is observed once', async () => {
    const svc = service({ main: failing(serverError), backup: failing(serverError) });
    const id = await agentWith(svc, 'main', { fallback_models: ['backup'] });
    const error = await rejection(svc.runAgent(ACME, id, { input: 'hi', session_id: 's' }));
    expect(error.code).toBe('provider_error');
    expect(observed.map(({ model, outcome }) => ({ model, outcome }))).toStrictEqual([
      { model: 'main', outcome: 'provider_error' },
      { model: 'backup', outcome: 'provider_error' },
    ]);
    expect(await store.getSession({ accountId: ACME, agentId: id, sessionId: 's' })).toBeUndefined();
  });

  test('the caller’s abort is not a reason to try another model', async () => {
    const controller = new AbortController();
    const main = new MockLanguageModelV4({
      doGenerate: async () => {
        controller.abort(new Error('client went away'));
        throw new Error('aborted');
      },
    });
    const backup = answering('never');
    const svc = service({ main, backup });
    const id = await agentWith(svc, 'main', { fallback_models: ['backup'] });
    await expect(svc.runAgent(ACME, id, { input: 'hi' }, { signal: controller.signal })).rejects.toThrow(
      'client went away',
    );
    expect(backup.doGenerateCalls).toHaveLength(0);
  });

  test('a fallback the server no longer offers, or that cannot read the input’s image, is passed over', async () => {
    const svc = service({ vision: failing(serverError), text: answering('no'), backup: answering('seen') });
    const id = await agentWith(svc, 'vision', { fallback_models: ['gone', 'text', 'backup'] });
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).toString('base64');
    const result = await svc.runAgent(ACME, id, { input: [{ type: 'image', media_type: 'image/png', data: png }] });
    expect(result.metadata.model).toBe('backup');
    expect(observed.map((o) => o.model)).toStrictEqual(['vision', 'backup']);
  });

  test('streamed: a model that fails before any event falls back, and only the answer’s events are sent', async () => {
    const svc = service({ main: failing(serverError), backup: answering('Hello there') });
    const id = await agentWith(svc, 'main', { fallback_models: ['backup'] });
    const events = await collect(await svc.streamAgent(ACME, id, { input: 'hi' }));
    expect(events.filter((e) => e.type === 'text-delta')).toStrictEqual([
      { type: 'text-delta', delta: 'Hello' },
      { type: 'text-delta', delta: ' there' },
    ]);
    const done = events.at(-1);
    expect(done?.type === 'done' && done.result.metadata.model).toBe('backup');
    expect(observed.map((o) => o.outcome)).toStrictEqual(['provider_error', 'ok']);
  });

  test('streamed: once text went out, a failure ends the run without a fallback', async () => {
    const main = new MockLanguageModelV4({
      doStream: async () => ({
        stream: convertArrayToReadableStream<LanguageModelV4StreamPart>([
          { type: 'stream-start', warnings: [] },
          { type: 'text-start', id: 't' },
          { type: 'text-delta', id: 't', delta: 'Half' },
          { type: 'error', error: serverError() },
        ]),
      }),
    });
    const backup = answering('never');
    const svc = service({ main, backup });
    const id = await agentWith(svc, 'main', { fallback_models: ['backup'] });
    const seen: RunEvent[] = [];
    const error = await rejection(
      (async () => {
        for await (const e of await svc.streamAgent(ACME, id, { input: 'hi' })) seen.push(e);
      })(),
    );
    expect(error.code).toBe('provider_error');
    expect(seen).toStrictEqual([{ type: 'text-delta', delta: 'Half' }]);
    expect(backup.doStreamCalls).toHaveLength(0);
  });
});

describe('model settings', () => {
  const callOf = (model: MockLanguageModelV4): LanguageModelV4CallOptions => model.doGenerateCalls[0]!;

  test('temperature, top_p and max_output_tokens of the agent reach the model call', async () => {
    const model = answering('ok');
    const svc = service({ main: model });
    const id = await agentWith(svc, 'main', { temperature: 0.2, top_p: 0.9, max_output_tokens: 321 });
    await svc.runAgent(ACME, id, { input: 'hi' });
    const call = callOf(model);
    expect({ temperature: call.temperature, topP: call.topP, maxOutputTokens: call.maxOutputTokens }).toStrictEqual({
      temperature: 0.2,
      topP: 0.9,
      maxOutputTokens: 321,
    });
  });

  test('unset settings leave the model’s defaults, and the server’s bound on the answer', async () => {
    const model = answering('ok');
    const svc = service({ main: model }, { maxOutputTokens: 777 });
    const id = await agentWith(svc, 'main', { temperature: null, top_p: null, max_output_tokens: null });
    await svc.runAgent(ACME, id, { input: 'hi' });
    const call = callOf(model);
    expect({ temperature: call.temperature, topP: call.topP, maxOutputTokens: call.maxOutputTokens }).toStrictEqual({
      temperature: undefined,
      topP: undefined,
      maxOutputTokens: 777,
    });
  });

  test('the context budget keeps the agent’s max_output_tokens for the answer, not the server’s bound', async () => {
    const svc = service({ main: answering('ok') }, { maxOutputTokens: 4000, contextWindows: { main: 1000 } });
    const tight = await agentWith(svc, 'main', {});
    const error = await rejection(svc.runAgent(ACME, tight, { input: 'hi' }));
    expect(error.details?.input?.message).toBe(
      'input is too long for the context window of main (1000 tokens, 4000 kept for the answer)',
    );
    const small = await agentWith(svc, 'main', { max_output_tokens: 200 });
    expect((await svc.runAgent(ACME, small, { input: 'hi' })).output).toBe('ok');
  });
});

describe('input parts through a run', () => {
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 7]).toString('base64');

  test('an image reaches the model as an image part, and the session keeps the message with its parts', async () => {
    const model = answering('A pixel');
    const svc = service({ vision: model });
    const id = await agentWith(svc, 'vision', {});
    const input = [
      { type: 'text' as const, text: 'What is it?' },
      { type: 'image' as const, media_type: 'image/png' as const, data: png },
    ];
    await svc.runAgent(ACME, id, { input, session_id: 's' });
    // toEqual: the AI SDK leaves `providerOptions` and `filename` keys undefined.
    expect(model.doGenerateCalls[0]?.prompt.at(-1)).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'What is it?' },
        {
          type: 'file',
          data: { type: 'data', data: new Uint8Array(Buffer.from(png, 'base64')) },
          mediaType: 'image/png',
        },
      ],
    });
    const [user] = await store.readMessages({ accountId: ACME, agentId: id, sessionId: 's' });
    expect(user).toStrictEqual({ role: 'user', content: 'What is it?', parts: input, created_at: user?.created_at });
  });

  test('mock models say which images and files they were sent', async () => {
    const models = mockModels({ vision: ({ input }) => `Saw: ${input}` }, { input: { vision: ['text', 'image'] } });
    const svc = new AgentService({ store, models, generateId: sequentialIds() });
    const { agent_id } = await svc.createAgent(ACME, { name: 'A', instruction: 'I', model: 'vision' });
    const url = 'https://images.example/cat.png';
    const input = [
      { type: 'text' as const, text: 'Which?' },
      { type: 'image' as const, media_type: 'image/png' as const, data: png },
    ];
    expect((await svc.runAgent(ACME, agent_id, { input })).output).toBe('Saw: Which?');
    expect(models.prompts('vision')).toStrictEqual([
      {
        instruction: 'I',
        messages: [{ role: 'user', content: 'Which?' }],
        input: 'Which?',
        files: [{ media_type: 'image/png', bytes: 9 }],
      },
    ]);
    // A mock model takes no URL, so one is refused rather than fetched.
    const error = await rejection(
      svc.runAgent(ACME, agent_id, { input: [{ type: 'image', media_type: 'image/png', url }] }),
    );
    expect(error.code).toBe('invalid_input');
    expect(models.prompts('vision')).toHaveLength(1);
  });

  test('a model that reads text only is refused the image before it is called', async () => {
    const model = answering('never');
    const svc = service({ plain: model });
    const id = await agentWith(svc, 'plain', {});
    const error = await rejection(
      svc.runAgent(ACME, id, { input: [{ type: 'image', media_type: 'image/png', data: png }], session_id: 's' }),
    );
    expect(error.details).toStrictEqual({
      input: {
        message: 'The model "plain" cannot read images; send text, or use a model that reads images',
        path: ['input', 0],
      },
    });
    expect(model.doGenerateCalls).toHaveLength(0);
    expect(await store.getSession({ accountId: ACME, agentId: id, sessionId: 's' })).toBeUndefined();
  });

  test('a URL the provider takes is passed on; one it would need fetched is refused, never fetched', async () => {
    const takesUrls = new MockLanguageModelV4({
      supportedUrls: { 'image/*': [/^https:\/\//] },
      doGenerate: answering('ok').doGenerate,
    });
    const svc = service({ vision: takesUrls, backup: answering('never') });
    const id = await agentWith(svc, 'vision', {});
    const url = 'https://images.example/cat.png';
    await svc.runAgent(ACME, id, { input: [{ type: 'image', media_type: 'image/png', url }] });
    expect(takesUrls.doGenerateCalls[0]?.prompt.at(-1)?.content).toEqual([
      { type: 'file', data: { type: 'url', url: new URL(url) }, mediaType: 'image/png' },
    ]);

    const id2 = await agentWith(svc, 'backup', {});
    const error = await rejection(
      svc.runAgent(ACME, id2, {
        input: [{ type: 'file', media_type: 'application/pdf', url: 'https://10.0.0.1/x.pdf' }],
      }),
    );
    expect(error.code).toBe('invalid_input');
    expect(error.details).toStrictEqual({
      input: {
        message:
          'The model "backup" cannot read https://10.0.0.1/… by URL, and the server does not fetch URLs; send the bytes as base64 data instead',
        path: ['input'],
      },
    });
  });
});
