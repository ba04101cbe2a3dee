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
import { createAgentRouter } from './router.js';

// Clients' JSON Schemas over HTTP: what one request with a hostile `json_format` could do to the server
// (exhaust it, or tell one account something of another's), each reproduced here. What it could do to
// the server's responsiveness is measured alone, in json-format-timing.isolated.test.ts.
const KEYS = { a: 'key-json-format-a-0123456789', b: 'key-json-format-b-0123456789' };
let server: Server;
let base: string;
let fake: FakeOpenAIServer;

beforeAll(async () => {
  fake = await startFakeOpenAIServer({ reply: (request) => ({ text: JSON.stringify({ v: request.messages.at(-1)?.content ?? '' }) }) });
  const models = combineModels(echoModels(), openAIModels({ apiKey: 'sk-test', baseURL: fake.baseURL, api: 'chat', models: ['gpt-4o-mini'] }));
  const service = new AgentService({ store: new MemoryStore(), models, maxRetries: 0 });
  const app = express();
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

  test('a $ref that is not a valid JSON pointer is a 400, not a 500', async () => {
    const answer = await run('a', { $ref: '#/%' });
    expect([answer.status, answer.body.details.json_format.message]).toStrictEqual([400, expect.stringMatching(/^json_format is not a valid JSON Schema: /)]);
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
    const rssBefore = process.memoryUsage().rss;
    const properties = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`p${i}`, { type: 'string' }]));
    for (const account of ['a', 'b'] as const) {
      for (let i = 0; i < 3000; i += 10) {
        const batch = Array.from({ length: 10 }, (_, j) => run(account, { type: 'object', properties: { ...properties, [`x${i + j}`]: { type: 'number' } } }));
        expect((await Promise.all(batch)).map((r) => r.status)).toStrictEqual(Array.from({ length: 10 }, () => 200));
      }
    }
    const grown = heap() - before;
    const rssGrown = process.memoryUsage().rss - rssBefore;
    console.log(`after 6,000 distinct schemas: heap growth ${(grown / 1e6).toFixed(1)} MB, process memory growth ${(rssGrown / 1e6).toFixed(1)} MB`);
    expect(grown).toBeLessThan(100e6);
    // The schema workers' heaps are outside the main heap: each is capped, so the process stays bounded too.
    expect(rssGrown).toBeLessThan(400e6);
    const again = await run('a', mine);
    expect([again.status, JSON.parse(again.body.data.output)]).toStrictEqual([200, { ssn: 'hello' }]);
  }, 120_000);
});
