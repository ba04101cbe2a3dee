import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type FakeOpenAIServer, startFakeOpenAIServer } from '@agenthost/core/test';
import express from 'express';
import { pino } from 'pino';
import request from 'supertest';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { type AgentHost, createAgentHost } from './host.js';
import { REFERENCE_SCRIPT_PATH } from './reference-page.js';

const KEY = 'shop-key-0123456789abcdef';
const ID = /^agt_[A-Za-z0-9_-]{22}$/;
const TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
let fake: FakeOpenAIServer;
let release: () => void;
let host: AgentHost;
let server: Server;
let base: string;

/** An existing app with its own body parser and route, the host's router mounted under /api/v1 and /api. */
async function mountedApp(): Promise<void> {
  host = await createAgentHost({
    store: 'memory',
    apiKeys: [{ account: 'shop', key: KEY }],
    openaiBaseUrl: fake.baseURL,
    openaiModels: ['slow-model'],
    logLevel: 'silent',
  });
  const app = express();
  app.use(express.json());
  app.post('/orders', (req, res) => {
    res.json({ ordered: req.body.item });
  });
  app.use(['/api/v1', '/api'], host.router);
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(base + path, {
    method,
    headers: { 'x-api-key': KEY, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as any };
}

beforeEach(async () => {
  // A slow model: each call waits until the test releases it.
  let gate = new Promise<void>((resolve) => (release = resolve));
  fake = await startFakeOpenAIServer({
    reply: async (request) => {
      await gate;
      gate = Promise.resolve();
      return { text: `done: ${request.messages.at(-1)?.content}`, usage: { input: 3, output: 2 } };
    },
  });
  await mountedApp();
});
afterEach(async () => {
  release();
  await host.close({ deadlineMs: 0 });
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await fake.close();
});

describe('host.router mounted in an app with its own express.json() and routes', () => {
  test('serves the app’s route, the API under both prefixes, /readyz, /healthz and /metrics', async () => {
    expect(await call('POST', '/orders', { item: 'tea' })).toStrictEqual({ status: 200, body: { ordered: 'tea' } });
    const created = await call('POST', '/api/v1/agents', { name: 'Helper', instruction: 'Help.', model: 'echo' });
    expect(created).toStrictEqual({
      status: 200,
      body: {
        success: true,
        data: { agent_id: expect.stringMatching(ID), created_at: expect.stringMatching(TIME) },
        status: 200,
      },
    });
    const run = await call('POST', `/api/agents/${created.body.data.agent_id}/run`, { input: 'hi' });
    expect(run).toStrictEqual({
      status: 200,
      body: {
        success: true,
        data: {
          output: 'Echo: hi',
          session_id: run.body.data.session_id,
          status: 'completed',
          pending_approvals: [],
          metadata: run.body.data.metadata,
        },
        status: 200,
      },
    });
    expect(run.body.data.metadata.model).toBe('echo');
    expect(await call('GET', '/api/v1/readyz')).toStrictEqual({
      status: 200,
      body: { success: true, data: { status: 'ready', checks: { storage: 'ok' } }, status: 200 },
    });
    expect(await call('GET', '/api/v1/healthz')).toStrictEqual({
      status: 200,
      body: { success: true, data: { status: 'alive' }, status: 200 },
    });
    const metrics = await fetch(`${base}/api/v1/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toMatch(
      /^agenthost_http_requests_total\{method="POST",route="\/api\/agents\/:agentId\/run",status="200"\} 1$/m,
    );
  });

  test('host.close() drains a run in flight: readiness fails at once, the run finishes and is answered', async () => {
    const agentId = (await call('POST', '/api/v1/agents', { name: 'Slow', instruction: 'Wait.', model: 'slow-model' }))
      .body.data.agent_id;
    const running = call('POST', `/api/v1/agents/${agentId}/run`, { input: 'slow one', session_id: 's1' });
    while (fake.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    let closedYet = false;
    const closed = host.close({ deadlineMs: 10_000 }).finally(() => (closedYet = true));
    expect(await call('GET', '/api/v1/readyz')).toStrictEqual({
      status: 503,
      body: { success: false, error: 'Not ready: shutting down', code: 'not_ready', status: 503 },
    });
    expect(closedYet).toBe(false);
    release();
    const answer = await running;
    expect(answer).toStrictEqual({
      status: 200,
      body: {
        success: true,
        data: {
          output: 'done: slow one',
          session_id: 's1',
          status: 'completed',
          pending_approvals: [],
          metadata: {
            model: 'slow-model',
            agent_version: 1,
            tool_used: null,
            tools_used: [],
            tokens: { prompt: 3, completion: 2, total: 5 },
            omitted_messages: 0,
          },
        },
        status: 200,
      },
    });
    expect(await closed).toStrictEqual({ aborted: 0 });
  });

  test('past the deadline, host.close() cuts off the run still going', async () => {
    const agentId = (await call('POST', '/api/v1/agents', { name: 'Slow', instruction: 'Wait.', model: 'slow-model' }))
      .body.data.agent_id;
    const running = call('POST', `/api/v1/agents/${agentId}/run`, { input: 'too slow' }).catch((e: Error) => e.name);
    while (fake.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await host.close({ deadlineMs: 100 })).toStrictEqual({ aborted: 1 });
    expect(await running).toBe('TypeError');
  });

  test('the health routes answer under the API in any case, with a trailing slash or a query, and to OPTIONS; other methods reach the API', async () => {
    const alive = { status: 200, body: { success: true, data: { status: 'alive' }, status: 200 } };
    expect([
      await call('GET', '/api/v1/HEALTHZ/'),
      await call('GET', '/api/healthz?probe=1'),
      await call('GET', '/api/v1/Healthz'),
    ]).toStrictEqual([alive, alive, alive]);
    const head = await fetch(`${base}/api/v1/healthz`, { method: 'HEAD' });
    expect([head.status, head.headers.get('cache-control'), head.headers.get('content-type')]).toStrictEqual([
      200,
      'no-store',
      'application/json; charset=utf-8',
    ]);
    const metrics = await fetch(`${base}/api/v1/METRICS/`);
    expect([metrics.status, (await metrics.text()).includes('agenthost_http_requests_total')]).toStrictEqual([
      200,
      true,
    ]);
    const options = await fetch(`${base}/api/v1/readyz`, { method: 'OPTIONS' });
    expect([options.status, options.headers.get('allow'), await options.text()]).toStrictEqual([
      200,
      'GET, HEAD',
      'GET, HEAD',
    ]);
    expect(await call('POST', '/api/v1/healthz', {})).toStrictEqual({
      status: 404,
      body: { success: false, error: 'Route not found: POST /api/v1/healthz', code: 'not_found', status: 404 },
    });
    for (const path of ['/api/v1/healthzz', '/api/v1/healthz//'])
      expect(await call('GET', path)).toStrictEqual({
        status: 404,
        body: { success: false, error: `Route not found: GET ${path}`, code: 'not_found', status: 404 },
      });
  });

  test('once closed, the API answers 503 not_ready (not a storage failure) and readiness stays failed', async () => {
    await host.close({ deadlineMs: 0 });
    expect(await call('GET', '/api/v1/agents')).toStrictEqual({
      status: 503,
      body: { success: false, error: 'Not ready: this server has shut down', code: 'not_ready', status: 503 },
    });
    expect((await call('GET', '/api/readyz')).status).toBe(503);
    expect(await call('GET', '/api/v1/healthz')).toStrictEqual({
      status: 200,
      body: { success: true, data: { status: 'alive' }, status: 200 },
    });
  });
});

test('the standalone app answers a status no code stands for (416 from the reference script) as a 400 envelope', async () => {
  const standalone = await createAgentHost({ store: 'memory', apiKeys: [{ account: 'shop', key: KEY }] });
  try {
    const response = await request(standalone.app).get(REFERENCE_SCRIPT_PATH).set('Range', 'bytes=999999999-');
    expect({ status: response.status, body: response.body }).toStrictEqual({
      status: 400,
      body: { success: false, error: 'Bad request', code: 'malformed_request', status: 400 },
    });
  } finally {
    await standalone.close({ deadlineMs: 0 });
  }
});

test('host.requestLog logs one line per request of a mounting app, through the host’s logger', async () => {
  const lines: { msg: string; res: { statusCode: number } }[] = [];
  const logged = await createAgentHost(
    { store: 'memory', apiKeys: [{ account: 'shop', key: KEY }] },
    { logger: pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) }) },
  );
  try {
    const app = express().use(logged.requestLog).use('/api/v1', logged.router);
    const listening = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => listening.once('listening', resolve));
    const port = (listening.address() as AddressInfo).port;
    expect((await fetch(`http://127.0.0.1:${port}/api/v1/healthz`)).status).toBe(200);
    await new Promise((resolve) => listening.close(resolve));
    expect(lines.map((line) => [line.msg, line.res.statusCode])).toStrictEqual([['GET /api/v1/healthz 200', 200]]);
  } finally {
    await logged.close({ deadlineMs: 0 });
  }
});
