import { once } from 'node:events';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AgentService, echoModels, StorageUnavailableError } from '@agenthost/core';
import { MemoryStore } from '@agenthost/storage';
import express from 'express';
import request from 'supertest';
import { describe, expect, test } from 'vitest';
import { type KeyResolver, staticKeys } from './auth.js';
import { createAgentRouter } from './router.js';

// A common setup: the host parses every JSON body itself (`app.use(express.json())`, limit 100 kb,
// no depth rule) and mounts the router after it.
const KEY = 'key-host-parser-0123456789';
const JSON_TYPE = 'application/json; charset=utf-8';

function hostApp(options: { bodyLimit?: string; hostLimit?: string; resolveKey?: KeyResolver } = {}) {
  const store = new MemoryStore();
  const service = new AgentService({ store, models: echoModels() });
  const { hostLimit, ...routerOptions } = options;
  const router = createAgentRouter(service, {
    resolveKey: staticKeys([{ account: 'acme', key: KEY }]),
    logger: { error: () => {} },
    ...routerOptions,
  });
  const app = express();
  app.use(express.json(hostLimit ? { limit: hostLimit } : {}));
  app.get('/shop', (_req, res) => {
    res.send('my shop');
  });
  app.use(['/api/v1', '/api'], router, router.errorHandler);
  return { app, store };
}

const agent = { name: 'Helper', instruction: 'Help.', model: 'echo' };
const post = (app: express.Express, key: string | undefined, body: string) => {
  const req = request(app).post('/api/v1/agents').set('content-type', 'application/json');
  return (key ? req.set('x-api-key', key) : req).send(body);
};

describe('mounted behind the host’s own express.json(): bodies the host parsed or refused', () => {
  test('uses the body the host parsed: create and run work', async () => {
    const { app, store } = hostApp();
    const created = await post(app, KEY, JSON.stringify(agent));
    expect(created.status).toBe(200);
    const run = await request(app)
      .post(`/api/agents/${created.body.data.agent_id}/run`)
      .set('x-api-key', KEY)
      .send({ input: 'hi' });
    expect([run.status, run.body.data.output]).toStrictEqual([200, 'Echo: hi']);
    expect(await store.listAgents('acme')).toHaveLength(1);
    expect((await request(app).get('/shop')).text).toBe('my shop');
  });

  test.each([
    [
      'malformed JSON with a wrong key',
      'wrong-key-0123456789',
      '{"name": "x",}',
      401,
      'Invalid API key provided',
      'unauthenticated',
    ],
    [
      'malformed JSON without a key',
      undefined,
      '{"name": "x",}',
      401,
      'Missing API key: send it in the x-api-key header',
      'unauthenticated',
    ],
    [
      'malformed JSON with a valid key',
      KEY,
      '{"name": "x",}',
      400,
      'Malformed JSON in request body: send one JSON object',
      'invalid_json',
    ],
    [
      'a body over the host’s 100 kb limit',
      KEY,
      JSON.stringify({ ...agent, instruction: 'x'.repeat(150_000) }),
      413,
      'Request body is larger than the limit of 100KB',
      'payload_too_large',
    ],
  ])('%s answers an envelope, never the host’s HTML error page', async (_, key, body, status, error, code) => {
    const { app, store } = hostApp();
    const res = await post(app, key, body);
    expect([res.status, res.headers['content-type'], res.body]).toStrictEqual([
      status,
      JSON_TYPE,
      { success: false, error, code, status },
    ]);
    expect(res.text).not.toMatch(/<|at .*\(/);
    expect(res.headers['x-request-id']).toMatch(/^[\w-]{36}$/);
    expect(await store.listAgents('acme')).toStrictEqual([]);
  });
});

describe('mounted behind the host’s own express.json(): the router’s own size and depth limits', () => {
  test('a body the host accepted is still held to the router’s own size and depth limits', async () => {
    const { app, store } = hostApp({ bodyLimit: '1kb' });
    const big = await post(app, KEY, JSON.stringify({ ...agent, instruction: 'x'.repeat(5_000) }));
    expect([big.status, big.body]).toStrictEqual([
      413,
      { success: false, error: 'Request body is larger than the limit of 1kb', code: 'payload_too_large', status: 413 },
    ]);
    const deep = await post(
      app,
      KEY,
      JSON.stringify({ ...agent, extra: JSON.parse(`${'['.repeat(70)}${']'.repeat(70)}`) }),
    );
    expect([deep.status, deep.body]).toStrictEqual([
      400,
      { success: false, error: 'The JSON body is nested more than 64 levels deep', code: 'invalid_json', status: 400 },
    ]);
    expect(await store.listAgents('acme')).toStrictEqual([]);
  });

  test('a body sent chunked (no Content-Length) is held to the router’s size limit too', async () => {
    const { app, store } = hostApp({ bodyLimit: '1kb', hostLimit: '10mb' });
    const server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const body = JSON.stringify({ ...agent, instruction: 'x'.repeat(5_000) });
      const req = httpRequest({
        port: (server.address() as AddressInfo).port,
        host: '127.0.0.1',
        method: 'POST',
        path: '/api/v1/agents',
        headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
      });
      // Written in pieces with no length given: Node sends it chunked.
      req.write(body.slice(0, 100));
      req.end(body.slice(100));
      const [res] = (await once(req, 'response')) as [IncomingMessage];
      const text = (await res.toArray()).join('');
      expect([res.statusCode, req.getHeader('content-length'), JSON.parse(text)]).toStrictEqual([
        413,
        undefined,
        {
          success: false,
          error: 'Request body is larger than the limit of 1kb',
          code: 'payload_too_large',
          status: 413,
        },
      ]);
      expect(await store.listAgents('acme')).toStrictEqual([]);
    } finally {
      server.close();
    }
  });
});

describe('mounted behind the host’s own express.json(): a failing key resolver', () => {
  test('a key resolver that fails while the host’s parser refused the body is a 503 envelope, not a crash', async () => {
    const resolveKey: KeyResolver = async () => {
      throw new StorageUnavailableError();
    };
    const { app } = hostApp({ resolveKey });
    const res = await post(app, KEY, '{"name":');
    expect([res.status, res.headers['retry-after'], res.body]).toStrictEqual([
      503,
      '2',
      { success: false, error: 'Storage is unavailable; retry later', code: 'storage_unavailable', status: 503 },
    ]);
  });
});
