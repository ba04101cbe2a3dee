import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { chainMiddleware } from './chain.js';

/** What a handler of the test does; the request's `do` query names one for each handler, in order. */
const BEHAVIOURS = ['next', 'route', 'router', 'error', 'throw', 'reject', 'reject-empty', 'later', 'respond'] as const;
type Behaviour = (typeof BEHAVIOURS)[number];
const HANDLERS = 4;

/** Handler `i`: records that it ran, then does what the request asks of it. */
function handler(i: number): RequestHandler {
  return function probe(req, res, next) {
    const trace = (res.locals.trace as number[] | undefined) ?? [];
    res.locals.trace = trace;
    trace.push(i);
    const behaviour = String(req.query.do).split(',')[i] as Behaviour;
    switch (behaviour) {
      case 'next':
        return next();
      case 'route':
        return next('route');
      case 'router':
        return next('router');
      case 'error':
        return next(new Error(`error from ${i}`));
      case 'throw':
        throw new Error(`thrown by ${i}`);
      case 'reject':
        return Promise.reject(new Error(`rejected by ${i}`)) as never;
      case 'reject-empty':
        return Promise.reject(undefined) as never;
      case 'later':
        return setImmediate(next) as never;
      case 'respond':
        return void res.json({ trace, by: i });
    }
  };
}

const handlers = Array.from({ length: HANDLERS }, (_, i) => handler(i));
const final: RequestHandler = (_req, res) => void res.json({ trace: res.locals.trace, by: 'final' });
const onError: ErrorRequestHandler = (error: Error, _req, res, _next) =>
  void res.status(500).json({ trace: res.locals.trace, error: error.message });

/**
 * The same handlers as Express's own layers, or as one chained layer: as a router's middlewares
 * (`/p`), and as one route's handlers (`/r`).
 */
function app(chained: boolean): express.Express {
  const router = express.Router();
  if (chained) router.use(chainMiddleware(handlers));
  else router.use(...handlers);
  router.use(final);
  const inRoute = express.Router();
  if (chained) inRoute.get('/', chainMiddleware(handlers, { inRoute: true }));
  else inRoute.get('/', ...handlers);
  inRoute.use(final);
  const served = express();
  served.use('/p', router);
  served.use('/r', inRoute);
  // After `next('router')`: the app goes on past the router.
  served.use((_req, res) => void res.status(404).json({ trace: res.locals.trace, by: 'app' }));
  served.use(onError);
  return served;
}

const servers: Server[] = [];
const bases: string[] = [];
beforeAll(async () => {
  for (const chained of [false, true]) {
    const server = app(chained).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    servers.push(server);
    bases.push(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  }
});
afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function answer(base: string, behaviours: readonly Behaviour[], mount: '/p' | '/r' = '/p') {
  const response = await fetch(`${base}${mount}?do=${behaviours.join(',')}`, { signal: AbortSignal.timeout(5_000) });
  return { status: response.status, body: (await response.json()) as unknown };
}

describe('chainMiddleware', () => {
  test('one layer answers every request as the same handlers as layers of their own do (fixed seed)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom(...BEHAVIOURS), { minLength: HANDLERS, maxLength: HANDLERS }),
        fc.constantFrom('/p' as const, '/r' as const),
        async (behaviours, mount) => {
          const [layered, chained] = await Promise.all(bases.map((base) => answer(base, behaviours, mount)));
          expect(chained).toStrictEqual(layered);
        },
      ),
      { seed: 20261128, numRuns: 300 },
    );
  });

  test.each([
    [['next', 'route', 'later', 'next'], { status: 200, body: { trace: [0, 1, 2, 3], by: 'final' } }],
    [['next', 'error', 'next', 'next'], { status: 500, body: { trace: [0, 1], error: 'error from 1' } }],
    [['throw', 'next', 'next', 'next'], { status: 500, body: { trace: [0], error: 'thrown by 0' } }],
    [['next', 'next', 'reject-empty', 'next'], { status: 500, body: { trace: [0, 1, 2], error: 'Rejected promise' } }],
    [['next', 'router', 'next', 'next'], { status: 404, body: { trace: [0, 1], by: 'app' } }],
    [['next', 'respond', 'next', 'next'], { status: 200, body: { trace: [0, 1], by: 1 } }],
  ] as const)('%j, chained, answers %j', async (behaviours, expected) => {
    expect(await answer(bases[1]!, behaviours)).toStrictEqual(expected);
  });

  test.each([
    [['next', 'route', 'next', 'next'], { status: 200, body: { trace: [0, 1], by: 'final' } }],
    [['next', 'next', 'later', 'route'], { status: 200, body: { trace: [0, 1, 2, 3], by: 'final' } }],
  ] as const)("%j, chained in a route, leaves the route on 'route': %j", async (behaviours, expected) => {
    expect(await answer(bases[1]!, behaviours, '/r')).toStrictEqual(expected);
  });

  test('one handler is returned as it is', () => {
    expect(chainMiddleware([handlers[0]!])).toBe(handlers[0]);
  });

  test('an error handler cannot be chained', () => {
    expect(() => chainMiddleware([handlers[0]!, onError as unknown as RequestHandler])).toThrow(
      new TypeError('chainMiddleware: only request handlers (req, res, next) can be chained'),
    );
  });
});
