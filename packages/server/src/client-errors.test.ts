import { envelopeResponse, exchange, parseResponse } from '@agenthost/express/test';
import { afterEach, expect, test } from 'vitest';
import { loadConfig } from './config.js';
import { type RunningServer, startServer } from './test-server.js';

const KEY = 'key-client-errors-0123456789';
let running: RunningServer | undefined;
afterEach(async () => {
  await running?.close(1_000);
  running = undefined;
});

/** The standalone server in this process, with slow-client limits short enough to test. */
async function start(): Promise<{ port: number; listAgents: () => Promise<unknown> }> {
  running = await startServer(
    loadConfig({
      PORT: '0',
      AGENTHOST_STORE: 'memory',
      AGENTHOST_API_KEYS: `acme:${KEY}`,
      AGENTHOST_HEADERS_TIMEOUT_MS: '1000',
      AGENTHOST_REQUEST_TIMEOUT_MS: '2000',
    }),
  );
  const { url } = running;
  return {
    port: Number(new URL(url).port),
    listAgents: async () =>
      ((await (await fetch(`${url}/agents`, { headers: { 'x-api-key': KEY } })).json()) as { data: unknown }).data,
  };
}

const CREATE = JSON.stringify({ name: 'Support', instruction: 'Be brief.', model: 'echo' });
const post = (headers: string) =>
  `POST /api/v1/agents HTTP/1.1\r\nHost: x\r\nx-api-key: ${KEY}\r\nContent-Type: application/json\r\n${headers}\r\n`;
const TIMEOUT = 'The request did not arrive in time: headers are allowed 1000 ms, the whole request 2000 ms';

test('a 20,000-character URL is a 431 envelope', async () => {
  const { port } = await start();
  const { received } = await exchange(port, [
    `GET /api/v1/agents?q=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\nx-api-key: ${KEY}\r\n\r\n`,
  ]);
  expect(parseResponse(received)).toStrictEqual(
    envelopeResponse(
      431,
      'Request Header Fields Too Large',
      'Request line and headers are larger than the limit of 16384 bytes',
    ),
  );
});

test('a duplicate Content-Length is a 400 envelope, and nothing is created', async () => {
  const { port, listAgents } = await start();
  const { received } = await exchange(port, [
    post(`Content-Length: ${CREATE.length}\r\nContent-Length: ${CREATE.length}\r\n`) + CREATE,
  ]);
  expect(parseResponse(received)).toStrictEqual(envelopeResponse(400, 'Bad Request', 'Malformed HTTP request'));
  expect(await listAgents()).toStrictEqual([]);
});

test('Expect: 200-ok is a 417 envelope, and nothing is created', async () => {
  const { port, listAgents } = await start();
  const { received } = await exchange(port, [post(`Expect: 200-ok\r\nContent-Length: ${CREATE.length}\r\n`) + CREATE]);
  expect(parseResponse(received)).toStrictEqual(
    envelopeResponse(417, 'Expectation Failed', 'Expectation failed: only "Expect: 100-continue" is supported', {
      date: expect.any(String),
    }),
  );
  expect(await listAgents()).toStrictEqual([]);
});

test('an HTTP/1.1 request without Host is a 400 envelope', async () => {
  const { port } = await start();
  const { received } = await exchange(port, [`GET /api/v1/agents HTTP/1.1\r\nx-api-key: ${KEY}\r\n\r\n`]);
  expect(parseResponse(received)).toStrictEqual(
    envelopeResponse(400, 'Bad Request', 'Bad request: an HTTP/1.1 request needs a Host header', {
      date: expect.any(String),
    }),
  );
});

test('headers sent slowly past the headers timeout are a 408 envelope', async () => {
  const { port } = await start();
  const drip = Array.from({ length: 60 }, (_, i) => `X-Slow-${i}: 1\r\n`);
  const { received, elapsedMs } = await exchange(port, ['GET /api/v1/agents HTTP/1.1\r\nHost: x\r\n', ...drip], {
    gapMs: 100,
  });
  expect(parseResponse(received)).toStrictEqual(envelopeResponse(408, 'Request Timeout', TIMEOUT));
  // Checked every second: between the limit and a second past it, with room for a loaded machine.
  expect(elapsedMs).toBeLessThan(4_000);
});

test('a body that stops arriving past the request timeout is a 408 envelope, and nothing is created', async () => {
  const { port, listAgents } = await start();
  const { received } = await exchange(port, [post(`Content-Length: ${CREATE.length}\r\n`) + CREATE.slice(0, 10)]);
  expect(parseResponse(received)).toStrictEqual(envelopeResponse(408, 'Request Timeout', TIMEOUT));
  expect(await listAgents()).toStrictEqual([]);
});

test('a request refused before its body arrived gets that one answer, and no 408 after it when the body never comes', async () => {
  const { port, listAgents } = await start();
  const unauthorized = post(`Content-Length: ${CREATE.length}\r\n`).replace(KEY, 'not-a-key-0123456789abcdef');
  const { received } = await exchange(port, [unauthorized + CREATE.slice(0, 10)]);
  const body = { success: false, error: 'Invalid API key provided', code: 'unauthenticated', status: 401 };
  expect(parseResponse(received)).toStrictEqual({
    statusLine: 'HTTP/1.1 401 Unauthorized',
    headers: {
      'x-request-id': expect.any(String),
      'cache-control': 'no-store',
      'ratelimit-policy': '30;w=900',
      ratelimit: 'limit=30, remaining=29, reset=900',
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(JSON.stringify(body).length),
      date: expect.any(String),
      connection: 'keep-alive',
      'keep-alive': 'timeout=5',
    },
    body,
  });
  expect(await listAgents()).toStrictEqual([]);
});
