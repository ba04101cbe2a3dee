import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { PassThrough } from 'node:stream';
import express from 'express';
import { afterEach, expect, test } from 'vitest';
import { createLogger } from './logging.js';
import { requestLogger } from './request-log.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

/** An app with the request log in front of `routes`, its lines parsed as they are written. */
async function loggedApp(routes: (app: express.Express) => void, before?: express.RequestHandler, level = 'info') {
  const out = new PassThrough();
  const lines: Record<string, unknown>[] = [];
  out.on('data', (chunk: Buffer) => {
    for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line));
  });
  const app = express();
  if (before) app.use(before);
  const logger = createLogger({ level, pretty: false, destination: out });
  app.use(requestLogger(logger));
  routes(app);
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  closers.push(() => server.close());
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, lines, server, logger };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

test("a request's line: its id, what it asked (secret headers as [redacted] only), what the router knew, and its answer", async () => {
  const { url, lines } = await loggedApp((app) =>
    app.get('/api/v1/agents/:id', (req, res) => {
      // What the API's request context and handler keep, as the router does.
      res.locals.agenthost = {
        requestId: (req as unknown as { id: string }).id,
        accountId: 'acme',
        agentId: 'agt_1',
      };
      res.json({ ok: true });
    }),
  );
  const answer = await fetch(`${url}/api/v1/agents/agt_1?pretty=true`, {
    headers: {
      'x-request-id': 'req-from-client-1',
      'x-api-key': 'a-key-secret-1',
      authorization: 'Bearer a-bearer-secret-2',
      cookie: 'session=a-cookie-secret-3',
      'user-agent': 'tests',
    },
  });
  await answer.text();
  await settle();
  expect(lines).toStrictEqual([
    {
      level: 30,
      time: expect.any(Number),
      pid: process.pid,
      hostname: expect.any(String),
      req: {
        method: 'GET',
        url: '/api/v1/agents/agt_1?pretty=true',
        remoteAddress: '127.0.0.1',
        headers: {
          'user-agent': 'tests',
          'x-api-key': '[redacted]',
          authorization: '[redacted]',
          cookie: '[redacted]',
        },
      },
      request_id: 'req-from-client-1',
      account: 'acme',
      agent_id: 'agt_1',
      res: { statusCode: 200 },
      responseTime: expect.any(Number),
      msg: 'GET /api/v1/agents/agt_1 200',
    },
  ]);
});

test('a request outside the API gets an id of its own: a new UUID unless the client sent a safe one', async () => {
  const { url, lines } = await loggedApp((app) =>
    app.get('/healthz', (req, res) => {
      res.json({ id: (req as express.Request & { id: string }).id });
    }),
  );
  const ids: string[] = [];
  for (const sent of ['ok-id.1:2_3', 'not safe!', 'x'.repeat(129), undefined]) {
    const answer = await fetch(`${url}/healthz`, { headers: sent === undefined ? {} : { 'x-request-id': sent } });
    ids.push(((await answer.json()) as { id: string }).id);
  }
  await settle();
  expect(ids[0]).toBe('ok-id.1:2_3');
  for (const id of ids.slice(1)) expect(id).toMatch(UUID);
  expect(new Set(ids).size).toBe(4);
  expect(lines.map((line) => [line.request_id, line.msg, line.level])).toStrictEqual(
    ids.map((id) => [id, 'GET /healthz 200', 30]),
  );
});

test('every request line is at info level, a 5xx too (the router logs its error once, at error level)', async () => {
  const { url, lines } = await loggedApp((app) => {
    app.get('/fail', (_req, res) => {
      res.status(503).end();
    });
    app.get('/missing', (_req, res) => {
      res.status(404).end();
    });
  });
  await (await fetch(`${url}/fail`)).text();
  await (await fetch(`${url}/missing`)).text();
  await settle();
  expect(lines.map((line) => [line.level, line.msg, line.res, line.err])).toStrictEqual([
    [30, 'GET /fail 503', { statusCode: 503 }, undefined],
    [30, 'GET /missing 404', { statusCode: 404 }, undefined],
  ]);
});

test('a client that goes away before its answer is complete: one line, marked aborted, with no status if none was sent', async () => {
  const reached: string[] = [];
  const closed: string[] = [];
  const { url, lines } = await loggedApp((app) => {
    app.get('/slow', (_req, res) => {
      reached.push('slow');
      res.write('part');
      res.once('close', () => closed.push('slow'));
    });
    app.get('/never', (_req, res) => {
      reached.push('never');
      res.once('close', () => closed.push('never'));
    });
  });
  const { port } = new URL(url);
  const until = async (done: () => boolean) => {
    while (!done()) await new Promise((resolve) => setTimeout(resolve, 5));
  };
  for (const path of ['slow', 'never']) {
    const socket = connect(Number(port), '127.0.0.1');
    socket.write(`GET /${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
    await until(() => reached.includes(path));
    socket.destroy();
    await until(() => closed.includes(path));
  }
  await settle();
  expect(
    lines.map((line) => [line.msg, line.res, line.aborted, (line.req as { remoteAddress: string }).remoteAddress]),
  ).toStrictEqual([
    ['GET /slow 200', { statusCode: 200 }, true, '127.0.0.1'],
    ['GET /never -', { statusCode: null }, true, '127.0.0.1'],
  ]);
});

test("a request's id already given by a middleware in front is kept when safe; the router's id is the line's", async () => {
  const { url, lines } = await loggedApp(
    (app) => {
      app.get('/given', (req, res) => {
        res.json({ id: (req as unknown as { id: string }).id });
      });
      app.get('/routed', (_req, res) => {
        // The API's own id for the request, as its request context keeps it.
        res.locals.agenthost = { requestId: 'router-id-1' };
        res.json({});
      });
    },
    // A request-id middleware of the app's own, in front of the request log.
    (req, _res, next) => {
      const preset = req.get('x-app-id');
      if (preset !== undefined) (req as unknown as { id: string }).id = preset;
      next();
    },
  );
  const ids: string[] = [];
  for (const preset of ['app-id-1', 'not a safe id!']) {
    const answer = await fetch(`${url}/given`, { headers: { 'x-app-id': preset, 'x-request-id': 'client-id-1' } });
    ids.push(((await answer.json()) as { id: string }).id);
  }
  await (await fetch(`${url}/routed`, { headers: { 'x-request-id': 'client-id-2' } })).text();
  await settle();
  expect(ids).toStrictEqual(['app-id-1', 'client-id-1']);
  expect(lines.map((line) => line.request_id)).toStrictEqual(['app-id-1', 'client-id-1', 'router-id-1']);
});

test('one line per request, whichever of finish and close comes first', async () => {
  const { url, lines } = await loggedApp((app) =>
    app.get('/', (_req, res) => {
      res.json({});
    }),
  );
  await Promise.all(Array.from({ length: 20 }, async () => (await fetch(url)).text()));
  await settle();
  expect(lines.length).toBe(20);
  expect(lines.every((line) => line.aborted === undefined)).toBe(true);
});

test('a logger above info makes no request line, and one set to info again does', async () => {
  const { url, lines, logger } = await loggedApp(
    (app) => app.get('/x', (req, res) => void res.json({ id: (req as unknown as { id?: string }).id ?? null })),
    undefined,
    'warn',
  );
  const quiet = await fetch(`${url}/x`);
  expect(await quiet.json()).toStrictEqual({ id: null });
  logger.level = 'info';
  const logged = await fetch(`${url}/x`, { headers: { 'x-request-id': 'req-2' } });
  expect(await logged.json()).toStrictEqual({ id: 'req-2' });
  await settle();
  expect(lines.map((line) => [line.msg, line.request_id])).toStrictEqual([['GET /x 200', 'req-2']]);
});
