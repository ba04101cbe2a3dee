// The HTTP contract (docs/http-api.md) as a client sees it: the router listening on a real port,
// mounted under both prefixes, two accounts, the echo model, and nothing but HTTP requests.
import type { AddressInfo } from 'node:net';
import { AgentService, combineModels, echoModels, openAIModels, type ToolProvider } from '@agenthost/core';
import { sequentialIds, startFakeOpenAIServer, testClock } from '@agenthost/core/test';
import { MemoryStore } from '@agenthost/storage';
import express from 'express';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test, vi } from 'vitest';
import { staticKeys } from './auth.js';
import { createAgentRouter } from './router.js';

const KEY_A = 'contract-key-alpha-0123456789';
const KEY_B = 'contract-key-beta-0123456789';
const NOW = '2026-11-22T10:00:00.000Z';
const JSON_TYPE = 'application/json; charset=utf-8';
const support = { name: 'Support Agent', instruction: 'You are a helpful support agent.', model: 'echo' };

interface Reply {
  status: number;
  type: string | null;
  body: unknown;
  text: string;
  headers: Headers;
}

interface Call {
  key?: string | null;
  body?: unknown;
  raw?: string;
  type?: string;
  prefix?: '/api/v1' | '/api';
}

let store: MemoryStore;
let base: string;
let close: () => Promise<void>;
let provider: Awaited<ReturnType<typeof providerModels>>;

/** Serves a fresh host (store, service, router) on a free port of 127.0.0.1. */
async function serve(service: AgentService): Promise<void> {
  const router = createAgentRouter(service, {
    resolveKey: staticKeys([
      { account: 'alpha', key: KEY_A },
      { account: 'beta', key: KEY_B },
    ]),
    logger: { error: () => {} },
    rateLimit: { perKey: { limit: 40, windowMs: 60_000 } },
  });
  const app = express();
  app.use(['/api/v1', '/api'], router, router.errorHandler);
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () => new Promise((resolve) => server.close(() => resolve()));
}

/** Beside the echo model, two models of a loopback OpenAI-compatible provider: one that hangs up, one that never answers. */
async function providerModels() {
  const fake = await startFakeOpenAIServer({
    reply: (request) => (request.model === 'failing' ? { reset: true } : { hang: true }),
  });
  const provider = openAIModels({ apiKey: 'test', baseURL: fake.baseURL, models: ['failing', 'hanging'] });
  return { models: combineModels(echoModels(), provider), close: () => fake.close() };
}

/** Two tool integrations the model is never asked to call; agents may name them. */
const tools: ToolProvider = {
  listTools: () => ['calculator', 'datetime'],
  tools: (name) => (['calculator', 'datetime'].includes(name) ? {} : undefined),
};

beforeAll(async () => {
  provider = await providerModels();
});

afterAll(() => provider.close());

beforeEach(async () => {
  store = new MemoryStore();
  const service = new AgentService({
    store,
    models: provider.models,
    tools,
    now: testClock(NOW),
    generateId: sequentialIds(),
    maxRetries: 0,
    providerTimeoutMs: 200,
  });
  await serve(service);
});

afterEach(() => close());

async function call(method: string, path: string, options: Call = {}): Promise<Reply> {
  const { key = KEY_A, body, raw, type = 'application/json', prefix = '/api/v1' } = options;
  const headers: Record<string, string> = key === null ? {} : { 'x-api-key': key };
  const payload = raw ?? (body === undefined ? undefined : JSON.stringify(body));
  if (payload !== undefined) headers['content-type'] = type;
  const res = await fetch(base + prefix + path, { method, headers, body: payload });
  const text = await res.text();
  return {
    status: res.status,
    type: res.headers.get('content-type'),
    body: JSON.parse(text),
    text,
    headers: res.headers,
  };
}

/** The whole response of a success: status 200, JSON, and the envelope around `data`. */
function ok(data: unknown) {
  return { status: 200, type: JSON_TYPE, body: { success: true, data, status: 200 } };
}

/**
 * The whole response of a refusal. An envelope may also carry a machine `code` (snake_case) beside
 * `error`; nothing else, and never `data`, a stack or a path.
 */
function refused(reply: Reply) {
  const { code, ...body } = reply.body as { code?: unknown };
  if (code !== undefined) expect(code).toMatch(/^[a-z]+(_[a-z]+)*$/);
  return { status: reply.status, type: reply.type, body };
}

/** The whole response of a refusal as the contract words it: status, message, and `details` for input errors. */
function refusal(status: number, error: string, details?: Record<string, { message: string; path: unknown[] }>) {
  return { status, type: JSON_TYPE, body: { success: false, error, ...(details ? { details } : {}), status } };
}

/** A reply without its raw text and headers, to compare with `ok` and `refusal`. */
function shape({ status, type, body }: Reply) {
  return { status, type, body };
}

/** The agent record of `support` (or of its copy named `name`), made at NOW. */
function record(agentId: string, name = support.name) {
  const config = { agent_id: agentId, name, instruction: support.instruction, model: 'echo', tool: null, tools: [] };
  const settings = { temperature: null, top_p: null, max_output_tokens: null, fallback_models: [], metadata: {} };
  const aliases = { selectedModel: 'echo', selectedTool: null };
  return {
    agent_id: agentId,
    name,
    config: { ...config, require_approval: [], component: 'Chat', ...settings, ...aliases },
    metadata: {},
    version: 1,
    created_at: NOW,
    updated_at: NOW,
  };
}

const create = (options: Call = {}) => call('POST', '/agents', { body: support, ...options });
const run = (agentId: string, body: unknown, options: Call = {}) =>
  call('POST', `/agents/${agentId}/run`, { body, ...options });

// Echo-model tokens: 3 a message plus its words and punctuation marks. The instruction "You are a
// helpful support agent." is 10, "Hello there" 5 and the reply "Echo: Hello there" 4 (7 as history).
function ran(output: string, sessionId: string, prompt: number, completion: number) {
  const tokens = { prompt, completion, total: prompt + completion };
  return ok({
    output,
    session_id: sessionId,
    status: 'completed',
    pending_approvals: [],
    metadata: {
      model: 'echo',
      agent_version: 1,
      tool_used: null,
      tools_used: [],
      tokens,
      omitted_messages: 0,
      cost: 0,
    },
  });
}

describe('routes under both prefixes', () => {
  test('create answers the new id and creation time, and get, list and run follow', async () => {
    expect(shape(await create())).toStrictEqual(ok({ agent_id: 'agent_1', created_at: NOW }));
    expect(shape(await call('GET', '/agents/agent_1'))).toStrictEqual(ok(record('agent_1')));
    expect(shape(await call('GET', '/agents'))).toStrictEqual(ok([record('agent_1')]));
    expect(shape(await run('agent_1', { input: 'Hello there' }))).toStrictEqual(
      ran('Echo: Hello there', 'session_1', 15, 4),
    );
  });

  test('/api is an alias of /api/v1: the same agents, whichever prefix made them', async () => {
    await create({ prefix: '/api', body: { ...support, name: 'Via /api' } });
    await create({ prefix: '/api/v1' });
    const both = ok([record('agent_1', 'Via /api'), record('agent_2')]);
    expect(shape(await call('GET', '/agents', { prefix: '/api' }))).toStrictEqual(both);
    expect(shape(await call('GET', '/agents', { prefix: '/api/v1' }))).toStrictEqual(both);
    expect(shape(await call('GET', '/agents/agent_1', { prefix: '/api/v1' }))).toStrictEqual(
      ok(record('agent_1', 'Via /api')),
    );
  });

  test('?pretty=true indents with two spaces; without it every body is one compact line', async () => {
    await create();
    const pretty = await call('GET', '/agents?pretty=true');
    expect(pretty.text).toBe(JSON.stringify({ success: true, data: [record('agent_1')], status: 200 }, null, 2));
    const compact = await call('GET', '/agents/agent_1');
    expect(compact.text).toBe(JSON.stringify({ success: true, data: record('agent_1'), status: 200 }));
    const prettyRun = await run('agent_1', { input: 'hi' }, { prefix: '/api' });
    expect(prettyRun.text).not.toContain('\n');
  });

  test('an unknown route is a 404 envelope, under either prefix', async () => {
    for (const prefix of ['/api/v1', '/api'] as const) {
      const reply = await call('GET', '/nothing-here', { prefix });
      expect(refused(reply)).toStrictEqual(refusal(404, `Route not found: GET ${prefix}/nothing-here`));
    }
  });
});

describe('records', () => {
  test('the server makes ids and timestamps; what a client sends for them is ignored', async () => {
    const chosen = { agent_id: 'chosen-by-client', created_at: '2000-01-01T00:00:00Z', updated_at: '2000-01-01' };
    expect(shape(await create({ body: { ...support, ...chosen } }))).toStrictEqual(
      ok({ agent_id: 'agent_1', created_at: NOW }),
    );
    expect(shape(await call('GET', '/agents/agent_1'))).toStrictEqual(ok(record('agent_1')));
  });

  test('a component is kept and returned in config', async () => {
    await create({ body: { ...support, component: 'Widget' } });
    const { body } = (await call('GET', '/agents/agent_1')) as { body: { data: { config: unknown } } };
    expect(body.data.config).toStrictEqual({ ...record('agent_1').config, component: 'Widget' });
  });

  test('by default, ids are URL-safe with 128 random bits and timestamps are UTC with milliseconds', async () => {
    await close();
    await serve(new AgentService({ store: new MemoryStore(), models: echoModels() }));
    const before = Date.now();
    const { body } = (await create()) as { body: { data: { agent_id: string; created_at: string } } };
    const { agent_id, created_at } = body.data;
    expect(agent_id).toMatch(/^agt_[A-Za-z0-9_-]{22}$/);
    expect(created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Date.parse(created_at)).toBeGreaterThanOrEqual(before - 1);
    expect(Date.parse(created_at)).toBeLessThanOrEqual(Date.now());
    const ran = (await run(agent_id, { input: 'hi' })) as { body: { data: { session_id: string } } };
    expect(ran.body.data.session_id).toMatch(/^ses_[A-Za-z0-9_-]{22}$/);
  });
});

describe('sessions', () => {
  test('a run without session_id starts a conversation; with it, the model sees the earlier turns', async () => {
    await create();
    expect(shape(await run('agent_1', { input: 'Hello there' }))).toStrictEqual(
      ran('Echo: Hello there', 'session_1', 15, 4),
    );
    expect(shape(await run('agent_1', { input: 'Hello there', session_id: 'session_1' }))).toStrictEqual(
      ran('Echo: Hello there', 'session_1', 27, 4),
    );
    expect(shape(await run('agent_1', { input: 'Hello there' }))).toStrictEqual(
      ran('Echo: Hello there', 'session_2', 15, 4),
    );
  });

  test('a client may choose a new session id of up to 128 characters of [A-Za-z0-9._:-]', async () => {
    await create();
    const chosen = `Ab9._:-${'x'.repeat(121)}`;
    expect(shape(await run('agent_1', { input: 'Hello there', session_id: chosen }))).toStrictEqual(
      ran('Echo: Hello there', chosen, 15, 4),
    );
    expect(shape(await run('agent_1', { input: 'Hello there', session_id: chosen }))).toStrictEqual(
      ran('Echo: Hello there', chosen, 27, 4),
    );
    for (const session_id of [`${chosen}y`, 'with space', 'slash/not', 'é']) {
      const reply = await run('agent_1', { input: 'Hello there', session_id });
      expect(refused(reply)).toStrictEqual(
        refusal(400, 'Invalid request format', {
          session_id: { message: expect.any(String), path: ['session_id'] },
        }),
      );
    }
  });

  test('one session id under another agent or another account is another, empty conversation', async () => {
    await create();
    await create();
    await create({ key: KEY_B });
    await run('agent_1', { input: 'Hello there', session_id: 'shared' });
    expect(shape(await run('agent_2', { input: 'Hello there', session_id: 'shared' }))).toStrictEqual(
      ran('Echo: Hello there', 'shared', 15, 4),
    );
    expect(shape(await run('agent_3', { input: 'Hello there', session_id: 'shared' }, { key: KEY_B }))).toStrictEqual(
      ran('Echo: Hello there', 'shared', 15, 4),
    );
  });

  test('a failed run stores nothing: 502 when the provider fails, 504 when it does not answer in time', async () => {
    await create({ body: { ...support, model: 'failing' } });
    await create({ body: { ...support, model: 'hanging' } });
    for (const [agentId, status, error] of [
      ['agent_1', 502, 'The model provider failed to answer'],
      ['agent_2', 504, 'The model provider did not answer in time'],
    ] as const) {
      expect(refused(await run(agentId, { input: 'hi', session_id: 's' }))).toStrictEqual(refusal(status, error));
      const messages = await store.readMessages({ accountId: 'alpha', agentId, sessionId: 's' });
      expect(messages).toStrictEqual([]);
    }
  });
});

/** The `details` entry of one offending field, whatever its message says. */
const field = (name: string, path: string[] = [name]) => ({ [name]: { message: expect.any(String), path } });

describe('refused requests', () => {
  test('missing, mistyped and blank fields: 400 with one details entry per field', async () => {
    expect(refused(await create({ body: {} }))).toStrictEqual(
      refusal(400, 'Invalid request format', { ...field('name'), ...field('instruction'), ...field('model') }),
    );
    for (const [body, name] of [
      [{ ...support, name: 123 }, 'name'],
      [{ ...support, name: '   ' }, 'name'],
      [{ ...support, tool: ['calculator'] }, 'tool'],
    ] as const) {
      expect(refused(await create({ body }))).toStrictEqual(refusal(400, 'Invalid request format', field(name)));
    }
    await create();
    for (const body of [{}, { input: '' }, { input: 42 }, { input: 'hi', session_id: 7 }]) {
      const reply = await run('agent_1', body);
      const offending = 'session_id' in body ? field('session_id') : field('input');
      expect(refused(reply)).toStrictEqual(refusal(400, 'Invalid request format', offending));
    }
  });

  test('a body that is not an object, or not JSON: 400', async () => {
    expect(refused(await create({ body: [support] }))).toStrictEqual(
      refusal(400, 'Invalid request format', field('request', [])),
    );
    for (const raw of ['{"name": "x",}', '{']) {
      expect(refused(await create({ raw }))).toStrictEqual(
        refusal(400, 'Malformed JSON in request body: send one JSON object'),
      );
    }
  });

  test('an unsupported model lists the supported ones; an unknown tool lists the tools', async () => {
    const model = await create({ body: { ...support, model: 'no-such-model' } });
    expect(refused(model)).toStrictEqual(refusal(400, 'Invalid request format', field('model')));
    expect((model.body as { details: { model: { message: string } } }).details.model.message).toContain('echo');
    const tool = await create({ body: { ...support, tool: 'no-such-tool' } });
    expect(refused(tool)).toStrictEqual(
      refusal(400, 'Unknown tool "no-such-tool". Supported tools: calculator, datetime', field('tool')),
    );
  });

  test('a POST body that is not JSON: 415', async () => {
    const reply = await create({ raw: 'name=x', type: 'text/plain' });
    expect(refused(reply)).toStrictEqual(refusal(415, 'Unsupported content type: send the body as application/json'));
  });

  test('a body over 1 MiB: 413, and the server goes on', async () => {
    const reply = await create({ body: { ...support, instruction: 'x'.repeat(1024 * 1024) } });
    expect(refused(reply)).toStrictEqual(refusal(413, 'Request body is larger than the limit of 1mb'));
    expect(shape(await create())).toStrictEqual(ok({ agent_id: 'agent_1', created_at: NOW }));
  });

  test("the key's rate limit spent: 429 with Retry-After", async () => {
    for (let i = 0; i < 40; i++) await call('GET', '/agents');
    const reply = await call('GET', '/agents');
    expect(refused(reply)).toStrictEqual(refusal(429, 'Rate limit reached for this API key; retry later'));
    expect(Number(reply.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(shape(await call('GET', '/agents', { key: KEY_B }))).toStrictEqual(ok([]));
  });

  test('anything unexpected: 500 with a generic message; the detail stays in the server', async () => {
    vi.spyOn(store, 'listAgents').mockRejectedValue(new Error('disk full at /var/lib/agenthost/store.db'));
    const reply = await call('GET', '/agents');
    expect(refused(reply)).toStrictEqual(refusal(500, 'Internal server error'));
  });
});

describe('keys and accounts', () => {
  test('no key, or a key that is not valid: 401 on every route', async () => {
    for (const key of [null, 'definitely-not-a-key', `${KEY_A}x`]) {
      for (const reply of [await call('GET', '/agents', { key }), await run('agent_1', { input: 'hi' }, { key })]) {
        const error = key === null ? 'Missing API key: send it in the x-api-key header' : 'Invalid API key provided';
        expect(refused(reply)).toStrictEqual(refusal(401, error));
      }
    }
  });

  test('an unknown agent and another account’s agent get the same 404; lists hold only their own', async () => {
    await create();
    const notFound = refusal(404, 'Agent not found');
    expect(refused(await call('GET', '/agents/agent_404'))).toStrictEqual(notFound);
    expect(refused(await run('agent_404', { input: 'hi' }))).toStrictEqual(notFound);
    expect(refused(await call('GET', '/agents/agent_1', { key: KEY_B }))).toStrictEqual(notFound);
    expect(refused(await run('agent_1', { input: 'hi' }, { key: KEY_B }))).toStrictEqual(notFound);
    expect(shape(await call('GET', '/agents', { key: KEY_B }))).toStrictEqual(ok([]));
    expect(shape(await call('GET', '/agents'))).toStrictEqual(ok([record('agent_1')]));
  });

  test('prototype-pollution keys in a body change nothing the server stores or answers', async () => {
    const raw = JSON.stringify(support).replace(
      '{',
      '{"__proto__":{"polluted":"yes","isAdmin":true},"constructor":{"prototype":{"polluted":"yes"}},',
    );
    expect(shape(await create({ raw }))).toStrictEqual(ok({ agent_id: 'agent_1', created_at: NOW }));
    expect(shape(await call('GET', '/agents'))).toStrictEqual(ok([record('agent_1')]));
    expect(shape(await call('GET', '/agents', { key: KEY_B }))).toStrictEqual(ok([]));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
