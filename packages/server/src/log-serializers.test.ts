import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { expect, test } from 'vitest';
import { logSerializers } from './log-serializers.js';
import { createLogger } from './logging.js';

/** A logger of the host's kind whose lines are read back as objects. */
function readLogger() {
  const out = new PassThrough();
  let text = '';
  out.on('data', (chunk) => {
    text += chunk;
  });
  const logger = createLogger({ level: 'info', pretty: false, destination: out });
  const lines = () =>
    text
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, any>);
  return { logger, lines, text: () => text };
}

test('secret request and response headers are [redacted] in any case, on a line and in a child binding; the rest is kept', () => {
  const { logger, lines } = readLogger();
  const req = {
    method: 'GET',
    headers: {
      'X-API-Key': 'k-secret-1',
      Authorization: 'Bearer t-secret-2',
      cookie: 'c-secret-3',
      'proxy-authorization': 'Basic p-secret-4',
      accept: 'text/plain',
    },
  };
  const res = { statusCode: 200, headers: { 'Set-Cookie': ['s-secret-5'], 'content-type': 'text/plain' } };
  logger.info({ req, res }, 'a line');
  logger.child({ req }).info('a child line');
  const masked = {
    method: 'GET',
    headers: {
      'X-API-Key': '[redacted]',
      Authorization: '[redacted]',
      cookie: '[redacted]',
      'proxy-authorization': '[redacted]',
      accept: 'text/plain',
    },
  };
  expect(lines().map(({ req, res, msg }) => ({ req, res, msg }))).toStrictEqual([
    {
      req: masked,
      res: { statusCode: 200, headers: { 'Set-Cookie': '[redacted]', 'content-type': 'text/plain' } },
      msg: 'a line',
    },
    { req: masked, res: undefined, msg: 'a child line' },
  ]);
  // The logged objects themselves are left as they were.
  expect(req.headers['X-API-Key']).toBe('k-secret-1');
  expect(res.headers['Set-Cookie']).toStrictEqual(['s-secret-5']);
});

test('what holds no secret header is passed through as it is, not copied', () => {
  for (const value of [undefined, null, 'text', 42, { headers: 'none' }, { headers: { accept: '*/*' } }, { a: 1 }])
    expect(logSerializers.req(value)).toBe(value);
  const alreadyMasked = { headers: { 'x-api-key': '[redacted]' } };
  expect(logSerializers.req(alreadyMasked)).toBe(alreadyMasked);
  const response = { headers: { 'x-api-key': 'only a request header is secret by that name' } };
  expect(logSerializers.res(response)).toBe(response);
});

test('a Node request or response logged as it is: described by the standard serializers, its secrets [redacted]', async () => {
  const { logger, lines, text } = readLogger();
  const server = createServer((req, res) => {
    res.setHeader('set-cookie', 'session=s-secret-2');
    logger.info({ req, res }, 'raw');
    res.end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<IncomingMessage>((resolve, reject) =>
    httpRequest({ port, host: '127.0.0.1', path: '/x?y=1', headers: { 'x-api-key': 'k-secret-1' } }, (answer) => {
      answer.resume();
      answer.on('end', () => resolve(answer));
    })
      .on('error', reject)
      .end(),
  );
  server.close();
  const [line] = lines();
  expect(line!.req).toMatchObject({ method: 'GET', url: '/x?y=1', headers: { 'x-api-key': '[redacted]' } });
  expect(line!.res).toMatchObject({ headers: { 'set-cookie': '[redacted]' } });
  expect(text()).not.toMatch(/secret/);
});

const SECRET_REQUEST = ['x-api-key', 'authorization', 'cookie', 'proxy-authorization'];

test('property: no secret header value of a logged request reaches the line, and every other header is kept', () => {
  // Header names: the secret ones in any case, and others; values that a check for `[redacted]` could mistake.
  const name = fc.oneof(
    fc
      .constantFrom(...SECRET_REQUEST)
      .chain((secret) =>
        fc
          .array(fc.boolean(), { minLength: secret.length, maxLength: secret.length })
          .map((upper) => [...secret].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join('')),
      ),
    fc.string({ minLength: 1, maxLength: 12 }),
  );
  const value = fc.oneof(fc.string(), fc.constant('[redacted]'), fc.array(fc.string(), { maxLength: 3 }));
  fc.assert(
    fc.property(fc.dictionary(name, value, { maxKeys: 8 }), (headers) => {
      const { logger, lines } = readLogger();
      logger.info({ req: { headers } }, 'line');
      const logged = lines()[0]!.req.headers as Record<string, unknown>;
      const expected = Object.fromEntries(
        Object.entries(headers).map(([key, v]) => [key, SECRET_REQUEST.includes(key.toLowerCase()) ? '[redacted]' : v]),
      );
      expect(logged).toStrictEqual(JSON.parse(JSON.stringify(expected)));
    }),
    { seed: 20261125, numRuns: 300 },
  );
});
