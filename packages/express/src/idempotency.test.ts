import { AgentService, ConflictError, type LockProvider, staticModels } from '@agenthost/core';
import { sequentialIds } from '@agenthost/core/test';
import { MemoryStore } from '@agenthost/storage';
import { MockLanguageModelV4 } from 'ai/test';
import express from 'express';
import request from 'supertest';
import { beforeEach, describe, expect, test } from 'vitest';
import { staticKeys } from './auth.js';
import { createAgentRouter } from './router.js';

const KEY_A = 'key-a-0123456789abcdef';
const KEY_B = 'key-b-0123456789abcdef';
let store: MemoryStore;
let calls: string[];
let delayMs: number;
let failNext: boolean;

function app(idempotency: { inFlightTtlMs?: number; locks?: LockProvider } = {}) {
  const model = new MockLanguageModelV4({
    doGenerate: async (options) => {
      const last = options.prompt.at(-1);
      const text = last?.role === 'user' && last.content[0]?.type === 'text' ? last.content[0].text : '';
      calls.push(text);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      if (failNext) {
        failNext = false;
        throw new Error('upstream 500');
      }
      return {
        content: [{ type: 'text', text: `answer to ${text}` }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage: {
          inputTokens: { total: 3, noCache: 3, cacheRead: 0, cacheWrite: 0 },
          outputTokens: { total: 2, text: 2, reasoning: 0 },
        },
        warnings: [],
      };
    },
  });
  const service = new AgentService({
    store,
    models: staticModels({ m: model }),
    generateId: sequentialIds(),
    maxRetries: 0,
  });
  const a = express();
  a.use(
    '/api/v1',
    createAgentRouter(service, {
      resolveKey: staticKeys([
        { account: 'alpha', key: KEY_A },
        { account: 'beta', key: KEY_B },
      ]),
      idempotency: { store, ...idempotency },
      logger: { error: () => {} },
    }),
  );
  return a;
}

beforeEach(() => {
  store = new MemoryStore();
  calls = [];
  delayMs = 0;
  failNext = false;
});

const body = { name: 'Support', instruction: 'Help.', model: 'm' };

describe('Idempotency-Key: replaying a finished request', () => {
  test('a retried create returns the first response and makes no second agent', async () => {
    const server = app();
    const first = await request(server)
      .post('/api/v1/agents')
      .set('x-api-key', KEY_A)
      .set('idempotency-key', 'create-1')
      .send(body);
    const retry = await request(server)
      .post('/api/v1/agents')
      .set('x-api-key', KEY_A)
      .set('idempotency-key', 'create-1')
      .send({ model: 'm', instruction: 'Help.', name: 'Support' });
    expect([retry.status, retry.body, retry.headers['idempotent-replayed']]).toStrictEqual([200, first.body, 'true']);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect((await store.listAgents('alpha')).map((a) => a.agent_id)).toStrictEqual(['agent_1']);
  });

  test('a retried run returns the first answer without calling the model again or storing the turn twice', async () => {
    const server = app();
    await request(server).post('/api/v1/agents').set('x-api-key', KEY_A).send(body);
    const run = () =>
      request(server)
        .post('/api/v1/agents/agent_1/run')
        .set('x-api-key', KEY_A)
        .set('idempotency-key', 'run-1')
        .send({ input: 'hello', session_id: 's' });
    const first = await run();
    const retry = await run();
    expect([first.status, retry.body]).toStrictEqual([200, first.body]);
    expect(calls).toStrictEqual(['hello']);
    expect(
      (await store.readMessages({ accountId: 'alpha', agentId: 'agent_1', sessionId: 's' })).map((m) => m.content),
    ).toStrictEqual(['hello', 'answer to hello']);
  });

  test('the same key with another request is 422, and nothing runs', async () => {
    const server = app();
    await request(server).post('/api/v1/agents').set('x-api-key', KEY_A).send(body);
    await request(server)
      .post('/api/v1/agents/agent_1/run')
      .set('x-api-key', KEY_A)
      .set('idempotency-key', 'k')
      .send({ input: 'one' });
    const other = await request(server)
      .post('/api/v1/agents/agent_1/run')
      .set('x-api-key', KEY_A)
      .set('idempotency-key', 'k')
      .send({ input: 'two' });
    expect([other.status, other.body]).toStrictEqual([
      422,
      {
        success: false,
        error: 'This Idempotency-Key was already used with a different request',
        code: 'idempotency_key_reused',
        status: 422,
      },
    ]);
    expect(calls).toStrictEqual(['one']);
  });
});

describe('Idempotency-Key: a request still running', () => {
  test('a retry while the first request still runs is 409; the model runs once', async () => {
    const server = app();
    await request(server).post('/api/v1/agents').set('x-api-key', KEY_A).send(body);
    delayMs = 300;
    const run = () =>
      request(server)
        .post('/api/v1/agents/agent_1/run')
        .set('x-api-key', KEY_A)
        .set('idempotency-key', 'slow')
        .send({ input: 'slow' });
    // supertest sends a request only once it is awaited; start the first one now.
    const first = run().then((r) => r);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const during = await run();
    expect([during.status, during.headers['retry-after'], during.body]).toStrictEqual([
      409,
      '2',
      {
        success: false,
        error: 'A request with this Idempotency-Key is still in progress; retry later',
        code: 'conflict',
        status: 409,
      },
    ]);
    expect((await first).status).toBe(200);
    expect((await run()).headers['idempotent-replayed']).toBe('true');
    expect(calls).toStrictEqual(['slow']);
  });

  test('a request that runs longer than the claim lease keeps its claim by renewing it', async () => {
    const server = app({ inFlightTtlMs: 150 });
    await request(server).post('/api/v1/agents').set('x-api-key', KEY_A).send(body);
    delayMs = 700;
    const run = () =>
      request(server)
        .post('/api/v1/agents/agent_1/run')
        .set('x-api-key', KEY_A)
        .set('idempotency-key', 'long')
        .send({ input: 'long' });
    const first = run().then((r) => r);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await run()).status).toBe(409);
    expect((await first).status).toBe(200);
    expect(calls).toStrictEqual(['long']);
  });
});

describe('Idempotency-Key: claims that lapse or stay locked', () => {
  test('a claim nobody renews (its server died) lapses after one lease, and the retry runs', async () => {
    const server = app({ inFlightTtlMs: 200 });
    await request(server).post('/api/v1/agents').set('x-api-key', KEY_A).send(body);
    const run = () =>
      request(server)
        .post('/api/v1/agents/agent_1/run')
        .set('x-api-key', KEY_A)
        .set('idempotency-key', 'orphan')
        .send({ input: 'orphan' });
    // What a server killed mid-run leaves: its in-flight claim, for one lease, renewed no more.
    const first = await run();
    const scope = JSON.stringify(['alpha', 'run', 'orphan']);
    const kept = (await store.getIdempotency(scope))!;
    await store.putIdempotency(
      scope,
      { fingerprint: kept.fingerprint, state: 'in_flight', owner: 'dead-server', created_at: kept.created_at },
      200,
    );
    expect((await run()).status).toBe(409);
    await new Promise((resolve) => setTimeout(resolve, 250));
    const retry = await run();
    expect([first.status, retry.status, retry.headers['idempotent-replayed']]).toStrictEqual([200, 200, undefined]);
    expect(calls).toStrictEqual(['orphan', 'orphan']);
  });

  test('a key whose claim lock stays busy is a 409 with Retry-After, and nothing runs', async () => {
    const busy: LockProvider = {
      acquire: async () => Promise.reject(new ConflictError({ message: 'Gave up waiting 5000 ms for a lock' })),
    };
    const server = app({ locks: busy });
    const res = await request(server)
      .post('/api/v1/agents')
      .set('x-api-key', KEY_A)
      .set('idempotency-key', 'busy')
      .send(body);
    expect([res.status, res.headers['retry-after'], res.body]).toStrictEqual([
      409,
      '2',
      {
        success: false,
        error: 'A request with this Idempotency-Key is being handled; retry later',
        code: 'conflict',
        status: 409,
      },
    ]);
    expect(await store.listAgents('alpha')).toStrictEqual([]);
  });
});

describe('Idempotency-Key: failed runs, key scope and bad keys', () => {
  test('a failed run is not kept: the retry runs again', async () => {
    const server = app();
    await request(server).post('/api/v1/agents').set('x-api-key', KEY_A).send(body);
    failNext = true;
    const run = () =>
      request(server)
        .post('/api/v1/agents/agent_1/run')
        .set('x-api-key', KEY_A)
        .set('idempotency-key', 'flaky')
        .send({ input: 'again' });
    expect((await run()).status).toBe(502);
    expect((await run()).status).toBe(200);
    expect(calls).toStrictEqual(['again', 'again']);
  });

  test('keys belong to an account; a bad key or a streamed run with a key is 400', async () => {
    const server = app();
    await request(server).post('/api/v1/agents').set('x-api-key', KEY_A).set('idempotency-key', 'shared').send(body);
    const other = await request(server)
      .post('/api/v1/agents')
      .set('x-api-key', KEY_B)
      .set('idempotency-key', 'shared')
      .send(body);
    expect([other.status, other.headers['idempotent-replayed'], await store.listAgents('beta')]).toMatchObject([
      200,
      undefined,
      [{ agent_id: 'agent_2' }],
    ]);
    const bad = await request(server)
      .post('/api/v1/agents')
      .set('x-api-key', KEY_A)
      .set('idempotency-key', 'x'.repeat(256))
      .send(body);
    expect([bad.status, bad.body.error]).toStrictEqual([400, 'Invalid Idempotency-Key']);
    const stream = await request(server)
      .post('/api/v1/agents/agent_1/run')
      .set('x-api-key', KEY_A)
      .set('idempotency-key', 's')
      .send({ input: 'x', stream: true });
    expect([stream.status, stream.body.error]).toStrictEqual([
      400,
      'Idempotency-Key is not supported for streamed runs; send it without stream',
    ]);
  });
});
