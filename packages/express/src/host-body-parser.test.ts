import { AgentService, echoModels } from '@agenthost/core';
import { MemoryStore } from '@agenthost/storage';
import express from 'express';
import request from 'supertest';
import { describe, expect, test } from 'vitest';
import { staticKeys } from './auth.js';
import { createAgentRouter } from './router.js';

// A common setup: the host parses every JSON body itself (`app.use(express.json())`, limit 100 kb,
// no depth rule) and mounts the router after it.
const KEY = 'key-host-parser-0123456789';
const JSON_TYPE = 'application/json; charset=utf-8';

function hostApp(options: { bodyLimit?: string } = {}) {
  const store = new MemoryStore();
  const service = new AgentService({ store, models: echoModels() });
  const router = createAgentRouter(service, { resolveKey: staticKeys([{ account: 'acme', key: KEY }]), logger: { error: () => {} }, ...options });
  const app = express();
  app.use(express.json());
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

describe('mounted behind the host’s own express.json()', () => {
  test('uses the body the host parsed: create and run work', async () => {
    const { app, store } = hostApp();
    const created = await post(app, KEY, JSON.stringify(agent));
    expect(created.status).toBe(200);
    const run = await request(app).post(`/api/agents/${created.body.data.agent_id}/run`).set('x-api-key', KEY).send({ input: 'hi' });
    expect([run.status, run.body.data.output]).toStrictEqual([200, 'Echo: hi']);
    expect(await store.listAgents('acme')).toHaveLength(1);
    expect((await request(app).get('/shop')).text).toBe('my shop');
  });

  test.each([
    ['malformed JSON with a wrong key', 'wrong-key-0123456789', '{"name": "x",}', 401, 'Invalid API key provided'],
    ['malformed JSON without a key', undefined, '{"name": "x",}', 401, 'Missing API key: send it in the x-api-key header'],
    ['malformed JSON with a valid key', KEY, '{"name": "x",}', 400, 'Malformed JSON in request body: send one JSON object'],
    ['a body over the host’s 100 kb limit', KEY, JSON.stringify({ ...agent, instruction: 'x'.repeat(150_000) }), 413, 'Request body is larger than the limit of 100KB'],
  ])('%s answers an envelope, never the host’s HTML error page', async (_, key, body, status, error) => {
    const { app, store } = hostApp();
    const res = await post(app, key, body);
    expect([res.status, res.headers['content-type'], res.body]).toStrictEqual([status, JSON_TYPE, { success: false, error, status }]);
    expect(res.text).not.toMatch(/<|at .*\(/);
    expect(res.headers['x-request-id']).toMatch(/^[\w-]{36}$/);
    expect(await store.listAgents('acme')).toStrictEqual([]);
  });

  test('a body the host accepted is still held to the router’s own size and depth limits', async () => {
    const { app, store } = hostApp({ bodyLimit: '1kb' });
    const big = await post(app, KEY, JSON.stringify({ ...agent, instruction: 'x'.repeat(5_000) }));
    expect([big.status, big.body]).toStrictEqual([413, { success: false, error: 'Request body is larger than the limit of 1kb', status: 413 }]);
    const deep = await post(app, KEY, JSON.stringify({ ...agent, extra: JSON.parse(`${'['.repeat(70)}${']'.repeat(70)}`) }));
    expect([deep.status, deep.body]).toStrictEqual([400, { success: false, error: 'The JSON body is nested more than 64 levels deep', status: 400 }]);
    expect(await store.listAgents('acme')).toStrictEqual([]);
  });
});
