import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { AgentService, combineModels, echoModels, openAIModels } from '@agenthost/core';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '@agenthost/core/test';
import { MemoryStore } from '@agenthost/storage';
import express from 'express';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { staticKeys } from './auth.js';
import { createHealthRouter } from './health.js';
import { createAgentRouter } from './router.js';

// Clients' JSON Schemas over HTTP: what one request with a hostile `json_format` could do to the server
// (block it, exhaust it, or tell one account something of another's), each reproduced here.
const KEYS = { a: 'key-json-format-a-0123456789', b: 'key-json-format-b-0123456789' };
let server: Server;
let base: string;
let fake: FakeOpenAIServer;

beforeAll(async () => {
  fake = await startFakeOpenAIServer({ reply: (request) => ({ text: JSON.stringify({ v: request.messages.at(-1)?.content ?? '' }) }) });
  const models = combineModels(echoModels(), openAIModels({ apiKey: 'sk-test', baseURL: fake.baseURL, api: 'chat', models: ['gpt-4o-mini'] }));
  const service = new AgentService({ store: new MemoryStore(), models, maxRetries: 0 });
  const app = express();
  app.use(createHealthRouter());
  app.use(
    '/api/v1',
    createAgentRouter(service, {
      resolveKey: staticKeys([
        { account: 'a', key: KEYS.a },
        { account: 'b', key: KEYS.b },
      ]),
    }),
  );
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await fake.close();
});

async function call(account: keyof typeof KEYS, method: string, path: string, body?: unknown) {
  const res = await fetch(`${base}/api/v1${path}`, { method, headers: { 'x-api-key': KEYS[account], 'content-type': 'application/json' }, ...(body !== undefined && { body: JSON.stringify(body) }) });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

const agents: Record<string, string> = {};
async function agent(account: keyof typeof KEYS, model = 'echo') {
  agents[`${account}:${model}`] ??= (await call(account, 'POST', '/agents', { name: 'J', instruction: 'Answer in JSON.', model })).body.data.agent_id;
  return agents[`${account}:${model}`]!;
}

const run = async (account: keyof typeof KEYS, json_format: unknown, input = 'hello', model = 'echo') =>
  call(account, 'POST', `/agents/${await agent(account, model)}/run`, { input, json_format });

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
  test('a nested-quantifier pattern on a 40-character echo answers at once with a 400; /healthz stays fast', async () => {
    await run('a', { type: 'string' }); // warm: the agent exists and a sandbox worker is up
    const started = performance.now();
    const { result, slowestHealthMs } = await whileHealthPolled(run('a', redos, `${'a'.repeat(39)}!`));
    const tookMs = performance.now() - started;
    console.log(`ReDoS repro: ${tookMs.toFixed(1)} ms, slowest /healthz ${slowestHealthMs.toFixed(1)} ms`);
    expect(result).toStrictEqual({ status: 400, body: formatError('The echo model answers with the input, which does not match the pattern of /v') });
    // A backtracking engine takes seconds here (minutes at 40 characters); the bounds leave room for a busy machine.
    expect(tookMs).toBeLessThan(1_000);
    expect(slowestHealthMs).toBeLessThan(250);
  });

  test('the same pattern over a real provider answer is a quick 502, and a matching answer is a 200', async () => {
    const { result, slowestHealthMs } = await whileHealthPolled(run('a', redos, `${'a'.repeat(39)}!`, 'gpt-4o-mini'));
    expect(result).toStrictEqual({ status: 502, body: { success: false, error: 'The model provider failed to answer', status: 502 } });
    expect(slowestHealthMs).toBeLessThan(250);
    const ok = await run('a', redos, 'aaaa', 'gpt-4o-mini');
    expect([ok.status, ok.body.data.output]).toStrictEqual([200, '{"v":"aaaa"}']);
  });

  test('arrays of 16 nested six deep are refused before anything is built', async () => {
    let nested: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 6; i++) nested = { type: 'array', minItems: 16, items: nested };
    const started = performance.now();
    const answer = await run('a', nested);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(answer).toStrictEqual({
      status: 400,
      body: formatError(
        'json_format asks for an answer longer than a run can produce (its smallest valid answer is over 16384 characters: 4 per token of the 4096-token output limit)',
      ),
    });
  });
});

describe('json_format is private to its account', () => {
  const invoice = (field: string) => ({ $id: 'https://acme.example/invoice', type: 'object', properties: { [field]: { type: 'string' } }, required: [field] });

  test("another account's $id neither blocks nor answers a $ref", async () => {
    expect((await run('b', invoice('total'))).status).toBe(200);
    const mine = await run('a', invoice('ssn'));
    expect([mine.status, JSON.parse(mine.body.data.output)]).toStrictEqual([200, { ssn: 'hello' }]);
    const probe = (field: string) => run('b', { $ref: `https://acme.example/invoice#/properties/${field}` });
    expect(await probe('ssn')).toStrictEqual({
      status: 400,
      body: formatError("json_format is not a valid JSON Schema: can't resolve reference https://acme.example/invoice#/properties/ssn from id #"),
    });
    expect(await probe('nothing')).toStrictEqual({
      status: 400,
      body: formatError("json_format is not a valid JSON Schema: can't resolve reference https://acme.example/invoice#/properties/nothing from id #"),
    });
  });

  test("3,000 distinct schemas from one account, then 3,000 from another: the heap stays flat and the first account's schema still works", async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const heap = () => {
      gc();
      return process.memoryUsage().heapUsed;
    };
    const mine = invoice('ssn');
    expect((await run('a', mine)).status).toBe(200);
    const before = heap();
    const properties = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`p${i}`, { type: 'string' }]));
    for (const account of ['a', 'b'] as const) {
      for (let i = 0; i < 3000; i += 10) {
        const batch = Array.from({ length: 10 }, (_, j) => run(account, { type: 'object', properties: { ...properties, [`x${i + j}`]: { type: 'number' } } }));
        expect((await Promise.all(batch)).map((r) => r.status)).toStrictEqual(Array.from({ length: 10 }, () => 200));
      }
    }
    const grown = heap() - before;
    console.log(`heap growth after 6,000 distinct schemas: ${(grown / 1e6).toFixed(1)} MB`);
    expect(grown).toBeLessThan(100e6);
    const again = await run('a', mine);
    expect([again.status, JSON.parse(again.body.data.output)]).toStrictEqual([200, { ssn: 'hello' }]);
  }, 120_000);
});
