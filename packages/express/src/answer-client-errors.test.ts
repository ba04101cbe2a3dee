import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, expect, test } from 'vitest';
import { answerClientErrors } from './answer-client-errors.js';
import { envelopeResponse, exchange, parseResponse } from './test.js';

let server: Server | undefined;
afterEach(() => {
  server?.closeAllConnections();
  server?.close();
  server = undefined;
});

/**
 * A server set up as the standalone one is (short slow-client limits, checked often), whose handler
 * records what reached it. `/early` begins its answer, and `/refuse` gives all of it, before the
 * request body has arrived.
 */
async function start(): Promise<{ port: number; handled: string[] }> {
  const handled: string[] = [];
  server = answerClientErrors(
    createServer({ headersTimeout: 1_000, requestTimeout: 2_000, connectionsCheckingInterval: 200 }, (req, res) => {
      handled.push(`${req.method} ${req.url}`);
      if (req.url === '/early') {
        res.writeHead(200, { 'content-type': 'text/plain' }).write('partial');
        return;
      }
      if (req.url === '/refuse') {
        res.writeHead(401, { 'content-type': 'text/plain', 'content-length': '2' }).end('no');
        return;
      }
      req.resume().on('end', () => res.end('ok'));
    }),
  );
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { port: (server!.address() as AddressInfo).port, handled };
}

test('a request line and headers over the size limit are a 431 envelope', async () => {
  const { port, handled } = await start();
  const { received } = await exchange(port, [`GET /${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`]);
  expect(parseResponse(received)).toStrictEqual(
    envelopeResponse(
      431,
      'Request Header Fields Too Large',
      'Request line and headers are larger than the limit of 16384 bytes',
    ),
  );
  expect(handled).toStrictEqual([]);
});

test('a duplicate Content-Length is a 400 envelope without the parser own words', async () => {
  const { port, handled } = await start();
  const { received } = await exchange(port, [
    'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab',
  ]);
  expect(parseResponse(received)).toStrictEqual(envelopeResponse(400, 'Bad Request', 'Malformed HTTP request'));
  expect(handled).toStrictEqual([]);
});

test('oversized chunk extensions are a 413 envelope', async () => {
  const { port } = await start();
  const { received } = await exchange(port, [
    `POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n1;${'e'.repeat(20_000)}\r\nx\r\n0\r\n\r\n`,
  ]);
  expect(parseResponse(received)).toStrictEqual(
    envelopeResponse(413, 'Payload Too Large', 'Chunk extensions in the request body are too large'),
  );
});

test('an expectation other than 100-continue is a 417 envelope, and the request never reaches the handler', async () => {
  const { port, handled } = await start();
  const { received } = await exchange(port, [
    'POST / HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\nContent-Length: 2\r\n\r\n{}',
  ]);
  const expected = envelopeResponse(
    417,
    'Expectation Failed',
    'Expectation failed: only "Expect: 100-continue" is supported',
  );
  expect(parseResponse(received)).toStrictEqual({
    ...expected,
    headers: { ...expected.headers, date: expect.any(String) },
  });
  expect(handled).toStrictEqual([]);
});

test('headers that arrive too slowly are a 408 envelope', async () => {
  const { port, handled } = await start();
  const drip = Array.from({ length: 40 }, (_, i) => `X-Slow-${i}: 1\r\n`);
  const { received, elapsedMs } = await exchange(port, ['GET / HTTP/1.1\r\nHost: x\r\n', ...drip], { gapMs: 100 });
  expect(parseResponse(received)).toStrictEqual(
    envelopeResponse(
      408,
      'Request Timeout',
      'The request did not arrive in time: headers are allowed 1000 ms, the whole request 2000 ms',
    ),
  );
  expect([elapsedMs < 3_500, handled]).toStrictEqual([true, []]);
});

test('a second request on a kept-alive connection whose headers come too slowly is a 408 envelope', async () => {
  const { port, handled } = await start();
  const drip = Array.from({ length: 40 }, (_, i) => `X-Slow-${i}: 1\r\n`);
  const { received } = await exchange(
    port,
    ['GET /first HTTP/1.1\r\nHost: x\r\n\r\n', 'GET /second HTTP/1.1\r\nHost: x\r\n', ...drip],
    { gapMs: 100 },
  );
  const second = received.indexOf('HTTP/1.1 408');
  expect(received.slice(0, second).replace(/\r\nDate: [^\r]+/, '')).toBe(
    'HTTP/1.1 200 OK\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5\r\nContent-Length: 2\r\n\r\nok',
  );
  expect(parseResponse(received.slice(second))).toStrictEqual(
    envelopeResponse(
      408,
      'Request Timeout',
      'The request did not arrive in time: headers are allowed 1000 ms, the whole request 2000 ms',
    ),
  );
  expect(handled).toStrictEqual(['GET /first']);
});

test('a body that stops arriving is a 408 envelope', async () => {
  const { port, handled } = await start();
  const { received } = await exchange(port, ['POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nab']);
  expect(parseResponse(received)).toStrictEqual(
    envelopeResponse(
      408,
      'Request Timeout',
      'The request did not arrive in time: headers are allowed 1000 ms, the whole request 2000 ms',
    ),
  );
  // The handler had the request, but had not begun its answer: the envelope could still go out.
  expect(handled).toStrictEqual(['POST /']);
});

test('a response already under way is not corrupted: no second response, the connection is cut', async () => {
  const { port, handled } = await start();
  const { received } = await exchange(port, ['POST /early HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nab']);
  expect(received.replace(/\r\nDate: [^\r]+/, '')).toBe(
    'HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5\r\nTransfer-Encoding: chunked\r\n\r\n7\r\npartial\r\n',
  );
  expect(handled).toStrictEqual(['POST /early']);
});

test('a request answered before its body arrived gets no second answer when the body never comes', async () => {
  const { port, handled } = await start();
  const { received } = await exchange(port, ['POST /refuse HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nab']);
  expect(received.replace(/\r\nDate: [^\r]+/, '')).toBe(
    'HTTP/1.1 401 Unauthorized\r\ncontent-type: text/plain\r\ncontent-length: 2\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5\r\n\r\nno',
  );
  expect(handled).toStrictEqual(['POST /refuse']);
});

test('a connection the client reset gets nothing written, and is closed', async () => {
  const { port } = await start();
  const accepted = new Promise<Socket>((resolve) => server!.once('connection', resolve));
  const closed = exchange(port, []);
  const socket = await accepted;
  server!.emit('clientError', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }), socket);
  expect([(await closed).received, socket.destroyed]).toStrictEqual(['', true]);
});
