import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AgentService, combineModels, echoModels, openAIModels } from '@agenthost/core';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '@agenthost/core/test';
import { MemoryStore } from '@agenthost/storage';
import express from 'express';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { staticKeys } from './auth.js';
import { createHealthRouter } from './health.js';
import { createAgentRouter } from './router.js';

// The findings that blocked the whole server through one `json_format`, with the bounds the fix must
// meet: an answer within 100 ms and /healthz within 50 ms meanwhile. Runs alone (an isolated test
// file), so no other test's load counts against the server.
const KEY = 'key-json-format-timing-0123456789';
let server: Server;
let base: string;
let fake: FakeOpenAIServer;

beforeAll(async () => {
  fake = await startFakeOpenAIServer({ reply: (request) => ({ text: JSON.stringify({ v: request.messages.at(-1)?.content ?? '' }) }) });
  const models = combineModels(echoModels(), openAIModels({ apiKey: 'sk-test', baseURL: fake.baseURL, api: 'chat', models: ['gpt-4o-mini'] }));
  const service = new AgentService({ store: new MemoryStore(), models, maxRetries: 0 });
  const app = express();
  app.use(createHealthRouter());
  app.use('/api/v1', createAgentRouter(service, { resolveKey: staticKeys([{ account: 'a', key: KEY }]), logger: { error: () => {} } }));
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await fake.close();
});

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(`${base}/api/v1${path}`, { method, headers: { 'x-api-key': KEY, 'content-type': 'application/json' }, ...(body !== undefined && { body: JSON.stringify(body) }) });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

const agents: Record<string, string> = {};
async function agent(model: string) {
  agents[model] ??= (await call('POST', '/agents', { name: 'J', instruction: 'Answer in JSON.', model })).body.data.agent_id;
  return agents[model]!;
}

const run = async (json_format: unknown, input: string, model = 'echo') => call('POST', `/agents/${await agent(model)}/run`, { input, json_format });
const formatError = (message: string) => ({ success: false, error: 'Invalid request format', details: { json_format: { message, path: ['json_format'] } }, status: 400 });

/** Polls /healthz until `work` settles; resolves with the work's result and the slowest health answer, in ms. */
async function whileHealthPolled<T>(work: Promise<T>): Promise<{ result: T; slowestHealthMs: number }> {
  let done = false;
  let slowest = 0;
  const poll = (async () => {
    while (!done) {
      const started = performance.now();
      await fetch(`${base}/healthz`).then((r) => r.arrayBuffer());
      slowest = Math.max(slowest, performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  })();
  const result = await work.finally(() => (done = true));
  await poll;
  return { result, slowestHealthMs: slowest };
}

const redos = { type: 'object', properties: { v: { type: 'string', maxLength: 64, pattern: '^(a+)+$' } }, required: ['v'] };

describe('json_format cannot block the server', () => {
  test('a nested-quantifier pattern on a 40-character echo answers within 100 ms with a 400; /healthz under 50 ms', async () => {
    await run({ type: 'string' }, 'warm'); // the agent exists and a sandbox worker is up
    const started = performance.now();
    const { result, slowestHealthMs } = await whileHealthPolled(run(redos, `${'a'.repeat(39)}!`));
    const tookMs = performance.now() - started;
    console.log(`ReDoS repro: ${tookMs.toFixed(1)} ms, slowest /healthz ${slowestHealthMs.toFixed(1)} ms`);
    expect(result).toStrictEqual({ status: 400, body: formatError('The echo model answers with the input, which does not match the pattern of /v') });
    // A backtracking engine takes seconds here, and never returns at 40 characters.
    expect(tookMs).toBeLessThan(100);
    expect(slowestHealthMs).toBeLessThan(50);
  });

  test('the same pattern over a real provider answer is a quick 502, and a matching answer is a 200', async () => {
    const { result, slowestHealthMs } = await whileHealthPolled(run(redos, `${'a'.repeat(39)}!`, 'gpt-4o-mini'));
    expect(result).toStrictEqual({ status: 502, body: { success: false, error: 'The model provider failed to answer', status: 502 } });
    expect(slowestHealthMs).toBeLessThan(50);
    const ok = await run(redos, 'aaaa', 'gpt-4o-mini');
    expect([ok.status, ok.body.data.output]).toStrictEqual([200, '{"v":"aaaa"}']);
  });

  test('arrays of 16 nested six deep are refused within 100 ms, before anything is built', async () => {
    let nested: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 6; i++) nested = { type: 'array', minItems: 16, items: nested };
    const started = performance.now();
    const answer = await run(nested, 'x');
    expect(performance.now() - started).toBeLessThan(100);
    expect(answer).toStrictEqual({
      status: 400,
      body: formatError(
        'json_format asks for an answer longer than a run can produce (its smallest valid answer is over 16384 characters: 4 per token of the 4096-token output limit)',
      ),
    });
  });
});

