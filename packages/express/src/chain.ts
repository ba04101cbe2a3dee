import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * One Express layer that runs `handlers` one after another, as `router.use(...handlers)` does, for a
 * fraction of the cost: Express's router matches, dispatches and allocates for every layer a request
 * passes (docs/performance.md, "Design choices"). Each handler is called as Express calls one: a
 * synchronous throw or a rejected promise goes on as `next(error)`; `next(error)` and `next('router')`
 * leave the chain at once, for the enclosing router to handle; `next()` goes on to the next handler.
 * `next('route')` goes on to the next handler too, as for a router's middlewares; with `inRoute` (the
 * chain is one of a route's handlers, `route.get(chainMiddleware([...], { inRoute: true }))`) it leaves
 * the chain and the route, as Express does there. Express's per-layer diagnostics (the router's tracing
 * channel) see the chain as one layer.
 *
 * @throws TypeError at creation for an error handler (four parameters): those stay layers of their own.
 */
export function chainMiddleware(
  handlers: readonly RequestHandler[],
  options: { inRoute?: boolean } = {},
): RequestHandler {
  for (const handler of handlers)
    if (typeof handler !== 'function' || handler.length > 3)
      throw new TypeError('chainMiddleware: only request handlers (req, res, next) can be chained');
  const all = [...handlers];
  if (all.length === 1) return all[0]!;
  const leaves = options.inRoute ? leavesRoute : leavesRouterChain;
  return function agentHostChain(req, res, out) {
    run(all, 0, req, res, out, leaves);
  };
}

/** Whether a value given to `next` ends the chain: an error or `'router'`; in a route, `'route'` too. */
const leavesRouterChain = (signal: unknown) => Boolean(signal) && signal !== 'route';
const leavesRoute = (signal: unknown) => Boolean(signal);

const noop = () => {};

function run(
  handlers: readonly RequestHandler[],
  index: number,
  req: Request,
  res: Response,
  out: NextFunction,
  leaves: (signal: unknown) => boolean,
): void {
  const handler = handlers[index];
  if (!handler) {
    out();
    return;
  }
  const next = ((signal?: unknown) => {
    if (leaves(signal)) out(signal);
    else run(handlers, index + 1, req, res, out, leaves);
  }) as NextFunction;
  try {
    const result = handler(req, res, next) as unknown;
    if (isThenable(result)) result.then(noop, (error: unknown) => next(error || new Error('Rejected promise')));
  } catch (error) {
    next(error);
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as PromiseLike<unknown>).then === 'function';
}
