import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AgentService, catalogEntry, estimatedCost, openAIModels, staticTools } from '@agenthost/core';
import {
  type FakeOpenAIReply,
  type FakeOpenAIRequest,
  type FakeOpenAIServer,
  startFakeOpenAIServer,
} from '@agenthost/core/test';
import { MemoryStore } from '@agenthost/storage';
import express from 'express';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { addTool } from './add-tool-fixture.js';
import { staticKeys } from './auth.js';
import { createAgentRouter } from './router.js';

// The real @ai-sdk/openai provider, through the HTTP API, against a loopback OpenAI-compatible server
// that does what each test's input asks: call a tool, fail, hang, reset, or answer nonsense.
const KEY = 'key-runs-0123456789abcdef';
// A provider key that looks like no known format: only the router's list of known secrets redacts it.
const PROVIDER_KEY = 'provider-key-runs-0123456789';
const ECHOED_KEY = 'sk-live-abcdef0123456789abcdef';
let fake: FakeOpenAIServer;
let store: MemoryStore;
let server: Server;
let base: string;
let logged: { message: string; fields: Record<string, unknown> }[];

function behaviour(request: FakeOpenAIRequest): FakeOpenAIReply {
  const last = request.messages.at(-1);
  const input = request.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '';
  if (last?.role === 'tool') return { text: `The sum is ${last.content}.`, usage: { input: 30, output: 5 } };
  if (input === 'add 2 and 3')
    return { toolCalls: [{ name: 'add', arguments: { a: 2, b: 3 } }], usage: { input: 20, output: 8 } };
  if (input === 'fail')
    return { status: 500, body: { error: { message: 'The server had an error', type: 'server_error' } } };
  if (input === 'rate limit')
    return {
      status: 429,
      body: { error: { message: 'Rate limit reached', type: 'requests' } },
      headers: { 'retry-after': '12' },
    };
  // Providers echo what they were sent in their error messages; the body is what the log must never hold.
  if (input === 'bad key') {
    return {
      status: 401,
      body: {
        error: {
          message: `Incorrect API key provided: ${ECHOED_KEY}; sent as Bearer ${PROVIDER_KEY}`,
          type: 'invalid_request_error',
          code: 'invalid_api_key',
        },
      },
    };
  }
  if (input === 'hang') return { hang: true };
  if (input === 'reset') return { reset: true };
  if (input === 'nonsense') return { raw: '{"choices": [ this is not json' };
  if (input === 'slow stream')
    return { text: 'one two three four five six', chunkDelayMs: 150, usage: { input: 10, output: 6 } };
  if (input === 'steady stream') return { text: 'one two three', chunkDelayMs: 80, usage: { input: 10, output: 3 } };
  return { text: `Reply to: ${input}`, usage: { input: 10, output: 4 } };
}

/** Starts the fake provider and the API over it, with agents' models on `api`. */
async function serve(api: 'chat' | 'responses') {
  fake = await startFakeOpenAIServer({ reply: behaviour });
  store = new MemoryStore();
  logged = [];
  const tools = staticTools({
    calculator: {
      add: addTool(),
    },
  });
  const service = new AgentService({
    store,
    models: openAIModels({ apiKey: PROVIDER_KEY, baseURL: fake.baseURL, api, models: ['gpt-4o-mini'] }),
    tools,
    maxRetries: 0,
    providerTimeoutMs: 500,
  });
  const app = express();
  app.use(
    '/api/v1',
    createAgentRouter(service, {
      resolveKey: staticKeys([{ account: 'acme', key: KEY }]),
      redact: [KEY, PROVIDER_KEY],
      logger: { error: (fields, message) => logged.push({ fields, message }) },
    }),
  );
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
}

async function stop() {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await fake.close();
}

beforeEach(() => serve('chat'));
afterEach(stop);

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(base + path, {
    method,
    headers: { 'x-api-key': KEY, 'content-type': 'application/json', ...headers },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, any> };
}

async function agent(tool?: string) {
  return (
    await call('POST', '/agents', { name: 'A', instruction: 'Be brief.', model: 'gpt-4o-mini', ...(tool && { tool }) })
  ).body.data.agent_id as string;
}

/** A run's cost at the catalog's list price of gpt-4o-mini, as metadata reports it. */
const listCost = (prompt: number, completion: number) =>
  estimatedCost({ price: catalogEntry('openai', 'gpt-4o-mini')!.price! }, { prompt, completion });

const history = async (agentId: string, sessionId: string) =>
  (await store.readMessages({ accountId: 'acme', agentId, sessionId })).map((m) => m.content);

/** Reads a server-sent event stream to its end. */
async function events(res: Response): Promise<{ event: string; data: any }[]> {
  const text = await res.text();
  return text
    .split('\n\n')
    .filter((block) => block.startsWith('id:'))
    .map((block) => {
      const [, eventLine, dataLine] = block.split('\n');
      return { event: eventLine!.slice('event: '.length), data: JSON.parse(dataLine!.slice('data: '.length)) };
    });
}

describe('provider faults through HTTP', () => {
  test.each([
    ['fail', 502, 'The model provider failed to answer', 'provider_error', undefined],
    ['reset', 502, 'The model provider failed to answer', 'provider_error', undefined],
    ['nonsense', 502, 'The model provider failed to answer', 'provider_error', undefined],
    ['bad key', 502, 'The model provider failed to answer', 'provider_error', undefined],
    ['rate limit', 503, 'The model provider is rate limiting this server; retry later', 'provider_rate_limited', '12'],
    ['hang', 504, 'The model provider did not answer in time', 'provider_timeout', undefined],
  ])(
    '"%s" answers %i with a generic message; the session is as it was',
    async (input, status, error, code, retryAfter) => {
      const id = await agent();
      await call('POST', `/agents/${id}/run`, { input: 'hello', session_id: 's' });
      const res = await call('POST', `/agents/${id}/run`, { input, session_id: 's' });
      expect([res.status, res.body, res.headers.get('retry-after') ?? undefined]).toStrictEqual([
        status,
        { success: false, error, code, status },
        retryAfter,
      ]);
      expect(await history(id, 's')).toStrictEqual(['hello', 'Reply to: hello']);
      expect(logged.map((l) => [l.message, l.fields.status])).toStrictEqual([[error, status]]);
    },
  );
});

describe('what a provider failure logs', () => {
  /** The one line logged for a run that the provider refused: no key, no provider body, no prompt. */
  const refusedLine = (requestId: string | null, agentId: string) => ({
    message: 'The model provider failed to answer',
    fields: {
      request_id: requestId,
      method: 'POST',
      path: `/api/v1/agents/${agentId}/run`,
      status: 502,
      err: {
        name: 'ProviderError',
        code: 'provider_error',
        message: 'The model provider failed to answer',
        provider: {
          name: 'openai.chat',
          host: new URL(fake.baseURL).host,
          status: 401,
          code: 'invalid_api_key',
          message: 'Incorrect API key provided: [redacted]; sent as Bearer [redacted]',
        },
      },
    },
  });

  test('a run: the provider, its status and its error code, with the key it echoed redacted', async () => {
    const id = await agent();
    const res = await call('POST', `/agents/${id}/run`, { input: 'bad key', session_id: 's' });
    expect([res.status, res.body]).toStrictEqual([
      502,
      { success: false, error: 'The model provider failed to answer', code: 'provider_error', status: 502 },
    ]);
    expect(logged).toStrictEqual([refusedLine(res.headers.get('x-request-id'), id)]);
    for (const secret of [ECHOED_KEY, PROVIDER_KEY, KEY, 'Be brief.', 'invalid_request_error'])
      expect(JSON.stringify(logged)).not.toContain(secret);
  });

  test('a streamed run: the same line', async () => {
    const id = await agent();
    const res = await fetch(`${base}/agents/${id}/run`, {
      method: 'POST',
      headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ input: 'bad key', stream: true }),
    });
    expect(await events(res)).toStrictEqual([
      {
        event: 'error',
        data: { success: false, error: 'The model provider failed to answer', code: 'provider_error', status: 502 },
      },
    ]);
    expect(logged).toStrictEqual([refusedLine(res.headers.get('x-request-id'), id)]);
    for (const secret of [ECHOED_KEY, PROVIDER_KEY, KEY, 'Be brief.', 'invalid_request_error'])
      expect(JSON.stringify(logged)).not.toContain(secret);
  });
});

describe('tools through HTTP', () => {
  test("the model calls the agent's tool, gets its result, and answers; only the turn is stored", async () => {
    const id = await agent('calculator');
    const res = await call('POST', `/agents/${id}/run`, { input: 'add 2 and 3', session_id: 's' });
    expect(res).toMatchObject({ status: 200 });
    expect(res.body).toStrictEqual({
      success: true,
      data: {
        output: 'The sum is 5.',
        session_id: 's',
        status: 'completed',
        pending_approvals: [],
        metadata: {
          model: 'gpt-4o-mini',
          agent_version: 1,
          tool_used: 'calculator',
          tools_used: ['calculator'],
          tokens: { prompt: 50, completion: 13, total: 63 },
          omitted_messages: 0,
          cost: listCost(50, 13),
        },
      },
      status: 200,
    });
    expect(fake.requests.map((r) => [r.tools, r.messages.at(-1)])).toStrictEqual([
      [['add'], { role: 'user', content: 'add 2 and 3' }],
      [['add'], { role: 'tool', content: '5' }],
    ]);
    expect(await history(id, 's')).toStrictEqual(['add 2 and 3', 'The sum is 5.']);
  });
});

describe('streaming through HTTP: events', () => {
  test('stream: true answers with server-sent events ending in done; the turn is stored', async () => {
    const id = await agent();
    const res = await fetch(`${base}/agents/${id}/run`, {
      method: 'POST',
      headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ input: 'hi there', session_id: 's', stream: true }),
    });
    expect([res.status, res.headers.get('content-type')]).toStrictEqual([200, 'text/event-stream; charset=utf-8']);
    const got = await events(res);
    expect(
      got
        .filter((e) => e.event === 'text-delta')
        .map((e) => e.data.delta)
        .join(''),
    ).toBe('Reply to: hi there');
    expect(got.at(-1)).toStrictEqual({
      event: 'done',
      data: {
        output: 'Reply to: hi there',
        session_id: 's',
        status: 'completed',
        pending_approvals: [],
        metadata: {
          model: 'gpt-4o-mini',
          agent_version: 1,
          tool_used: null,
          tools_used: [],
          tokens: { prompt: 10, completion: 4, total: 14 },
          omitted_messages: 0,
          cost: listCost(10, 4),
        },
      },
    });
    expect(got.filter((e) => e.event === 'done' || e.event === 'error')).toHaveLength(1);
    expect(fake.requests[0]!.stream).toBe(true);
    expect(await history(id, 's')).toStrictEqual(['hi there', 'Reply to: hi there']);
  });

  test('each event has an id line, counting up from 1 within the stream', async () => {
    const id = await agent('calculator');
    const res = await fetch(`${base}/agents/${id}/run`, {
      method: 'POST',
      headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ input: 'add 2 and 3', stream: true }),
    });
    const blocks = (await res.text()).split('\n\n').filter((block) => block !== '' && !block.startsWith(':'));
    expect(blocks.length).toBeGreaterThan(3);
    expect(blocks.map((block) => block.split('\n')[0])).toStrictEqual(blocks.map((_, i) => `id: ${i + 1}`));
    expect(blocks.map((block) => block.split('\n')[1]!.startsWith('event: '))).not.toContain(false);
  });

  test('Accept: text/event-stream streams too, tool calls included', async () => {
    const id = await agent('calculator');
    const res = await fetch(`${base}/agents/${id}/run`, {
      method: 'POST',
      headers: { 'x-api-key': KEY, 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ input: 'add 2 and 3' }),
    });
    const got = await events(res);
    expect(got.filter((e) => e.event !== 'text-delta')).toStrictEqual([
      { event: 'tool-call', data: { tool_call_id: 'call_1', tool_name: 'add', input: { a: 2, b: 3 } } },
      { event: 'tool-result', data: { tool_call_id: 'call_1', tool_name: 'add', output: 5 } },
      {
        event: 'done',
        data: {
          output: 'The sum is 5.',
          session_id: got.at(-1)!.data.session_id,
          status: 'completed',
          pending_approvals: [],
          metadata: {
            model: 'gpt-4o-mini',
            agent_version: 1,
            tool_used: 'calculator',
            tools_used: ['calculator'],
            tokens: { prompt: 50, completion: 13, total: 63 },
            omitted_messages: 0,
            cost: listCost(50, 13),
          },
        },
      },
    ]);
  });
});

describe('streaming through HTTP: failures and disconnects', () => {
  test('a provider failure during a stream ends it with one error event carrying the envelope', async () => {
    const id = await agent();
    const res = await fetch(`${base}/agents/${id}/run`, {
      method: 'POST',
      headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ input: 'fail', session_id: 's', stream: true }),
    });
    expect(res.status).toBe(200);
    expect(await events(res)).toStrictEqual([
      {
        event: 'error',
        data: { success: false, error: 'The model provider failed to answer', code: 'provider_error', status: 502 },
      },
    ]);
    expect(await history(id, 's')).toStrictEqual([]);
  });

  test('failures before the stream starts are plain JSON errors', async () => {
    const res = await call('POST', '/agents/agt_missing/run', { input: 'x', stream: true });
    expect([res.status, res.headers.get('content-type'), res.body]).toStrictEqual([
      404,
      'application/json; charset=utf-8',
      { success: false, error: 'Agent not found', code: 'not_found', status: 404 },
    ]);
  });

  test('a client that disconnects mid-stream aborts the model call; the session is unchanged', async () => {
    const id = await agent();
    await call('POST', `/agents/${id}/run`, { input: 'hello', session_id: 's' });
    const controller = new AbortController();
    const res = await fetch(`${base}/agents/${id}/run`, {
      method: 'POST',
      headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ input: 'slow stream', session_id: 's', stream: true }),
      signal: controller.signal,
    });
    const reader = res.body!.getReader();
    const { value } = await reader.read();
    expect(new TextDecoder().decode(value)).toContain('event: text-delta');
    controller.abort();
    // The session's lock is free again and nothing of the aborted run was stored.
    let after: Awaited<ReturnType<typeof call>> | undefined;
    for (let i = 0; i < 50 && after?.status !== 200; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      after = await call('POST', `/agents/${id}/run`, { input: 'next', session_id: 's' });
    }
    expect(await history(id, 's')).toStrictEqual(['hello', 'Reply to: hello', 'next', 'Reply to: next']);
    // The provider's answer to the aborted run was cut off, not read to its end.
    expect(fake.requests.map((r) => [r.messages.at(-1)?.content, r.completed])).toStrictEqual([
      ['hello', true],
      ['slow stream', false],
      ['next', true],
    ]);
    expect(logged).toStrictEqual([]);
  });
});

const PROVIDER_FAILED = {
  success: false,
  error: 'The model provider failed to answer',
  code: 'provider_error',
  status: 502,
};

/** Starts a streamed run of `input` in the session `s` of the agent `id`. */
const stream = (id: string, input: string) =>
  fetch(`${base}/agents/${id}/run`, {
    method: 'POST',
    headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ input, session_id: 's', stream: true }),
  });

/** An agent whose session `s` holds one turn; the provider answers the input `x` with `reply`. */
async function agentAnswering(reply: FakeOpenAIReply) {
  fake.reply((request) => (request.messages.at(-1)?.content === 'x' ? reply : behaviour(request)));
  const id = await agent();
  await call('POST', `/agents/${id}/run`, { input: 'hello', session_id: 's' });
  return id;
}

/** Nothing of the failed runs was stored, and the session's lock is free: the next run goes through at once. */
async function expectSessionUnchanged(id: string) {
  expect((await call('POST', `/agents/${id}/run`, { input: 'again', session_id: 's' })).status).toBe(200);
  expect(await history(id, 's')).toStrictEqual(['hello', 'Reply to: hello', 'again', 'Reply to: again']);
}

describe.each(['chat', 'responses'] as const)(
  'provider answers that are not what was asked for, over the %s API: answers of the wrong form',
  (api) => {
    beforeEach(async () => {
      await stop();
      await serve(api);
    });

    test.each<[string, FakeOpenAIReply]>([
      ['an HTML page', { raw: '<html><body><h1>502 Bad Gateway</h1></body></html>', contentType: 'text/html' }],
      ['an empty body', { raw: '' }],
      [
        'JSON without choices or output',
        { status: 200, body: { id: 'x', object: 'chat.completion', created: 1_700_000_000, model: 'gpt-4o-mini' } },
      ],
    ])(
      '%s: a plain run answers 502, a streamed run ends in one error event with the same envelope; nothing is stored',
      async (_, reply) => {
        const id = await agentAnswering(reply);
        const plain = await call('POST', `/agents/${id}/run`, { input: 'x', session_id: 's' });
        expect([plain.status, plain.body]).toStrictEqual([502, PROVIDER_FAILED]);
        const res = await stream(id, 'x');
        expect(res.status).toBe(200);
        expect(await events(res)).toStrictEqual([{ event: 'error', data: PROVIDER_FAILED }]);
        expect(logged.map((l) => [l.message, l.fields.status])).toStrictEqual([
          [PROVIDER_FAILED.error, 502],
          [PROVIDER_FAILED.error, 502],
        ]);
        await expectSessionUnchanged(id);
        expect(fake.requests.map((r) => [r.messages.at(-1)?.content, r.stream])).toStrictEqual([
          ['hello', false],
          ['x', false],
          ['x', true],
          ['again', false],
        ]);
      },
    );

    test('a streamed run answered with a whole completion instead of a stream ends in the error event; nothing is stored', async () => {
      const id = await agentAnswering({ text: 'Reply to: x', usage: { input: 10, output: 3 }, stream: false });
      expect(await events(await stream(id, 'x'))).toStrictEqual([{ event: 'error', data: PROVIDER_FAILED }]);
      await expectSessionUnchanged(id);
    });

    test('a plain run answered with a stream instead of a completion is a 502; nothing is stored', async () => {
      const id = await agentAnswering({ text: 'Reply to: x', usage: { input: 10, output: 3 }, stream: true });
      const plain = await call('POST', `/agents/${id}/run`, { input: 'x', session_id: 's' });
      expect([plain.status, plain.body]).toStrictEqual([502, PROVIDER_FAILED]);
      await expectSessionUnchanged(id);
    });
  },
);

describe.each(['chat', 'responses'] as const)(
  'provider answers that are not what was asked for, over the %s API: cut-off and empty answers',
  (api) => {
    beforeEach(async () => {
      await stop();
      await serve(api);
    });

    test('a stream cut off before the provider finished it ends in the error event after the text so far; nothing is stored', async () => {
      const id = await agentAnswering({
        text: 'one two three',
        chunks: ['one ', 'two ', 'three'],
        usage: { input: 10, output: 3 },
        unfinished: true,
      });
      expect(await events(await stream(id, 'x'))).toStrictEqual([
        { event: 'text-delta', data: { delta: 'one ' } },
        { event: 'text-delta', data: { delta: 'two ' } },
        { event: 'text-delta', data: { delta: 'three' } },
        { event: 'error', data: PROVIDER_FAILED },
      ]);
      await expectSessionUnchanged(id);
    });

    test('an empty answer the provider did finish is a success, streamed or not, and is stored', async () => {
      const id = await agentAnswering({ text: '', usage: { input: 10, output: 0 } });
      const done = {
        output: '',
        session_id: 's',
        status: 'completed',
        pending_approvals: [],
        metadata: {
          model: 'gpt-4o-mini',
          agent_version: 1,
          tool_used: null,
          tools_used: [],
          tokens: { prompt: 10, completion: 0, total: 10 },
          omitted_messages: 0,
          cost: listCost(10, 0),
        },
      };
      expect(await events(await stream(id, 'x'))).toStrictEqual([{ event: 'done', data: done }]);
      expect(await call('POST', `/agents/${id}/run`, { input: 'x', session_id: 's' })).toMatchObject({
        status: 200,
        body: { success: true, data: done },
      });
      expect(await history(id, 's')).toStrictEqual(['hello', 'Reply to: hello', 'x', '', 'x', '']);
      expect(logged).toStrictEqual([]);
    });
  },
);

describe('clients that give up', () => {
  test('a run abandoned while it waits for its session is not a server error', async () => {
    const id = await agent();
    const slow = fetch(`${base}/agents/${id}/run`, {
      method: 'POST',
      headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ input: 'steady stream', session_id: 's', stream: true }),
    }).then((r) => r.text());
    await new Promise((resolve) => setTimeout(resolve, 50));
    const controller = new AbortController();
    const waiting = fetch(`${base}/agents/${id}/run`, {
      method: 'POST',
      headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ input: 'behind', session_id: 's' }),
      signal: controller.signal,
    }).catch((e: Error) => e.name);
    await new Promise((resolve) => setTimeout(resolve, 50));
    controller.abort();
    expect(await waiting).toBe('AbortError');
    expect(await slow).toContain('event: done');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await history(id, 's')).toStrictEqual(['steady stream', 'one two three']);
    expect(logged).toStrictEqual([]);
  });
});

describe('sessions through HTTP', () => {
  test('list, read and delete a session; other methods are 405', async () => {
    const id = await agent();
    await call('POST', `/agents/${id}/run`, { input: 'one', session_id: 'a' });
    await call('POST', `/agents/${id}/run`, { input: 'two', session_id: 'b' });
    const list = await call('GET', `/agents/${id}/sessions?limit=1`);
    expect(list.body.data.sessions.map((s: { session_id: string }) => s.session_id)).toStrictEqual(['b']);
    const next = await call('GET', `/agents/${id}/sessions?limit=1&cursor=${list.body.data.next_cursor}`);
    expect([
      next.body.data.sessions.map((s: { session_id: string }) => s.session_id),
      next.body.data.next_cursor,
    ]).toStrictEqual([['a'], null]);
    const one = await call('GET', `/agents/${id}/sessions/a`);
    expect(one.body.data.messages.map((m: { content: string }) => m.content)).toStrictEqual(['one', 'Reply to: one']);
    expect(await call('DELETE', `/agents/${id}/sessions/a`)).toMatchObject({
      status: 200,
      body: { success: true, data: { session_id: 'a', deleted: true }, status: 200 },
    });
    expect(await call('GET', `/agents/${id}/sessions/a`)).toMatchObject({
      status: 404,
      body: { success: false, error: 'Session not found', code: 'not_found', status: 404 },
    });
    expect(await call('GET', `/agents/${id}/sessions?limit=abc`)).toMatchObject({
      status: 400,
      body: { details: { limit: { message: 'limit must be a whole number from 1 to 100' } } },
    });
    const put = await call('PUT', `/agents/${id}/sessions/a`, {});
    expect([put.status, put.headers.get('allow')]).toStrictEqual([405, 'GET, HEAD, DELETE']);
  });
});
