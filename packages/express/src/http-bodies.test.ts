import { AgentService, echoModels } from '@agenthost/core';
import { MemoryStore } from '@agenthost/storage';
import express from 'express';
import request from 'supertest';
import { beforeEach, describe, expect, test, vi } from 'vitest';
import { staticKeys } from './auth.js';
import { updateInput } from './http-bodies.js';
import { createAgentRouter } from './router.js';

const KEY = 'key-bodies-0123456789abcdef';
let service: AgentService;
let app: express.Express;
const api = () => ({
  post: (path: string, body: object) => request(app).post(`/api/v1${path}`).set('x-api-key', KEY).send(body),
  put: (path: string, body: object) => request(app).put(`/api/v1${path}`).set('x-api-key', KEY).send(body),
});

beforeEach(() => {
  service = new AgentService({ store: new MemoryStore(), models: echoModels() });
  app = express();
  app.use('/api/v1', createAgentRouter(service, { resolveKey: staticKeys([{ account: 'acme', key: KEY }]) }));
});

describe('the run body', () => {
  test('`stream` is read here and never reaches the service', async () => {
    const run = vi.spyOn(service, 'runAgent');
    const stream = vi.spyOn(service, 'streamAgent');
    const id = (await api().post('/agents', { name: 'A', instruction: 'I', model: 'echo' })).body.data.agent_id;
    expect((await api().post(`/agents/${id}/run`, { input: 'hi', stream: false })).status).toBe(200);
    const streamed = await api().post(`/agents/${id}/run`, { input: 'hi', stream: true, session_id: 's' });
    expect([streamed.status, streamed.headers['content-type']]).toStrictEqual([
      200,
      'text/event-stream; charset=utf-8',
    ]);
    expect(run.mock.calls.map((call) => call[2])).toStrictEqual([{ input: 'hi' }]);
    expect(stream.mock.calls.map((call) => call[2])).toStrictEqual([{ input: 'hi', session_id: 's' }]);
  });

  test('a `stream` that is not a boolean is a 400 with every issue of the body; an unknown agent stays a 404', async () => {
    const id = (await api().post('/agents', { name: 'A', instruction: 'I', model: 'echo' })).body.data.agent_id;
    const bad = await api().post(`/agents/${id}/run`, { input: 'hi', stream: 'yes', json_mode: 'no' });
    expect([bad.status, bad.body]).toStrictEqual([
      400,
      {
        success: false,
        error: 'Invalid request format',
        code: 'invalid_input',
        details: {
          stream: { message: 'stream must be true or false', path: ['stream'] },
          json_mode: { message: 'json_mode must be true or false', path: ['json_mode'] },
        },
        status: 400,
      },
    ]);
    const unknown = await api().post('/agents/agt_nope/run', { input: 'hi', stream: 'yes' });
    expect([unknown.status, unknown.body.code]).toStrictEqual([404, 'not_found']);
  });
});

describe('the PATCH and PUT body', () => {
  test('fields inside `config` reach the service flat, top-level fields winning', async () => {
    const update = vi.spyOn(service, 'updateAgent');
    const id = (await api().post('/agents', { name: 'A', instruction: 'I', model: 'echo' })).body.data.agent_id;
    const res = await api().put(`/agents/${id}`, { config: { name: 'Inner', instruction: 'New' }, name: 'Outer' });
    expect([res.status, res.body.data.name, res.body.data.config.instruction]).toStrictEqual([200, 'Outer', 'New']);
    expect(update.mock.calls.map((call) => call[2])).toStrictEqual([{ name: 'Outer', instruction: 'New' }]);
  });

  test('a body whose `config` is not an object, or that is not an object, passes as it came', () => {
    expect(updateInput({ config: 5, name: 'x' })).toStrictEqual({ config: 5, name: 'x' });
    expect(updateInput({ config: null })).toStrictEqual({ config: null });
    expect(updateInput({ config: ['a'] })).toStrictEqual({ config: ['a'] });
    expect(updateInput(['a'])).toStrictEqual(['a']);
    expect(updateInput({ config: { model: 'echo' } })).toStrictEqual({ model: 'echo' });
  });
});
