import { AgentService, echoModels } from '@agenthost/core';
import { MemoryStore } from '@agenthost/storage';
import express from 'express';
import request from 'supertest';
import { describe, expect, test } from 'vitest';
import { staticKeys } from './auth.js';
import { createAgentRouter, requestDetails } from './router.js';

const KEY = 'key-log-0123456789abcdef';

/** An app that notes `requestDetails` of every answered request, as a request logger would. */
function app(logContent: boolean) {
  const logged: ReturnType<typeof requestDetails>[] = [];
  const target = express();
  target.use((_req, res, next) => {
    res.on('finish', () => logged.push(requestDetails(res)));
    next();
  });
  target.use(
    '/api/v1',
    createAgentRouter(new AgentService({ store: new MemoryStore(), models: echoModels() }), {
      resolveKey: staticKeys([{ account: 'acme', key: KEY }]),
      logContent,
    }),
  );
  return { target, logged };
}

const post = (target: express.Express, path: string, body: object) =>
  request(target).post(`/api/v1${path}`).set('x-api-key', KEY).set('x-request-id', 'req-1').send(body);

describe('requestDetails: what the handlers report for the request log', () => {
  test.each([false, true])('the agent, session and run of JSON and streamed runs (logContent %s)', async (content) => {
    const { target, logged } = app(content);
    const id = (await post(target, '/agents', { name: 'A', instruction: 'I', model: 'echo' })).body.data.agent_id;
    await post(target, `/agents/${id}/run`, { input: 'Hello', session_id: 's1' });
    await post(target, `/agents/${id}/run`, { input: 'Again', session_id: 's1', stream: true });
    await post(target, '/agents/agt_nope/run', { input: 'Lost' });
    const run = (input: string) => ({
      model: 'echo',
      tool_used: null,
      tools_used: [],
      tokens: { prompt: expect.any(Number), completion: expect.any(Number), total: expect.any(Number) },
      ...(content && { input, output: `Echo: ${input}` }),
    });
    expect(logged).toStrictEqual([
      { request_id: 'req-1', account: 'acme', agent_id: id },
      { request_id: 'req-1', account: 'acme', agent_id: id, session_id: 's1', run: run('Hello') },
      { request_id: 'req-1', account: 'acme', agent_id: id, session_id: 's1', run: run('Again') },
      { request_id: 'req-1', account: 'acme' },
    ]);
  });
});
