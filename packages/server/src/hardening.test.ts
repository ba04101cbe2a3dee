import { connect } from 'node:net';
import { parseResponse } from '@agenthost/express/test';
import { afterEach, expect, test } from 'vitest';
import { killAll, startServer } from './test-process.js';

afterEach(killAll);
const KEY = 'key-hardening-0123456789abcdef';

test('a client that sends its headers too slowly is cut off with a 408 envelope', async () => {
  const server = await startServer({ AGENTHOST_API_KEYS: `acme:${KEY}`, AGENTHOST_HEADERS_TIMEOUT_MS: '1000' });
  const { port } = new URL(server.url);
  const socket = connect(Number(port), '127.0.0.1');
  const started = Date.now();
  socket.write('GET /api/v1/agents HTTP/1.1\r\nHost: x\r\n');
  const dripping = setInterval(() => socket.write('X-Slow: 1\r\n'), 200);
  let answer = '';
  socket.on('data', (d) => (answer += d));
  await new Promise((resolve) => socket.on('close', resolve));
  clearInterval(dripping);
  expect(Date.now() - started).toBeLessThan(5_000);
  const body = {
    success: false,
    error: 'The request did not arrive in time: headers are allowed 1000 ms, the whole request 30000 ms',
    code: 'request_timeout',
    status: 408,
  };
  expect(parseResponse(answer)).toStrictEqual({
    statusLine: 'HTTP/1.1 408 Request Timeout',
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(JSON.stringify(body).length),
      'cache-control': 'no-store',
      connection: 'close',
    },
    body,
  });
}, 20_000);

test('CORS is off by default, and on for the configured origins only', async () => {
  const closed = await startServer({ AGENTHOST_API_KEYS: `acme:${KEY}` });
  const preflight = (url: string, origin: string) =>
    fetch(`${url}/agents`, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'x-api-key,content-type',
      },
    });
  expect(
    (await preflight(closed.url, 'https://app.example.com')).headers.get('access-control-allow-origin'),
  ).toBeNull();
  const open = await startServer({
    AGENTHOST_API_KEYS: `acme:${KEY}`,
    AGENTHOST_CORS_ORIGINS: 'https://app.example.com',
  });
  const allowed = await preflight(open.url, 'https://app.example.com');
  expect([
    allowed.status,
    allowed.headers.get('access-control-allow-origin'),
    allowed.headers.get('access-control-allow-headers'),
  ]).toStrictEqual([
    204,
    'https://app.example.com',
    'content-type,x-api-key,idempotency-key,x-request-id,x-session-id',
  ]);
  expect((await preflight(open.url, 'https://evil.example.com')).headers.get('access-control-allow-origin')).toBeNull();
  const get = await fetch(`${open.url}/agents`, { headers: { 'x-api-key': KEY, origin: 'https://app.example.com' } });
  expect([get.status, get.headers.get('access-control-allow-origin'), get.headers.get('cache-control')]).toStrictEqual([
    200,
    'https://app.example.com',
    'no-store',
  ]);
}, 30_000);
