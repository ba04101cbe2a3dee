import { randomBytes } from 'node:crypto';
import { checkSecret, lazyPackage } from '@agenthost/core';
import type { Request, RequestHandler, Response } from 'express';
import type { Store } from 'express-rate-limit';
import { refusal, serialize } from './envelope.js';
import { limiterKeyNames } from './limiter-key.js';
import type { RequestState } from './request-state.js';

/** One limit: at most `limit` requests per `windowMs`. */
export interface Limit {
  limit: number;
  windowMs: number;
}

/** Options of the router's rate limits. */
export interface RateLimitOptions {
  /** Requests per API key. Off when absent. */
  perKey?: Limit;
  /** Failed authentications per client address; once spent, the address is refused until the window ends. Off when absent. */
  failedAuth?: Limit;
  /**
   * Makes the counter store of a limiter; give one that all servers share (for example
   * `rate-limit-redis`) so a limit holds across them. Default: each server counts in its memory.
   */
  store?: (limiter: 'key' | 'auth') => Store;
  /**
   * The deployment secret (32+ characters) under which a key's counter is named (`keyedHash`), so
   * that whoever can list the counter store's names cannot test guesses of a key. Required with
   * `store` and `perKey`: every server sharing the counters must name a key's counter alike. Without
   * a store, each router makes a random one.
   */
  keySecret?: string;
}

/** The limiters' package, loaded when a router with a rate limit is made. */
const limits = lazyPackage<typeof import('express-rate-limit')>('express-rate-limit', {
  url: import.meta.url,
  resolve: import.meta.resolve,
});

function refuse(message: string) {
  return function agentHostRateLimited(req: Request, res: Response) {
    const reset = (req as Request & { rateLimit?: { resetTime?: Date } }).rateLimit?.resetTime;
    const seconds = reset ? Math.max(1, Math.ceil((reset.getTime() - Date.now()) / 1000)) : 60;
    const response = refusal('rate_limited', message);
    res
      .status(response.status)
      .set({ 'Content-Type': 'application/json; charset=utf-8', 'Retry-After': String(seconds) })
      .send(serialize(response.body, req.query?.pretty === 'true'));
  };
}

function check(name: string, limit: Limit): void {
  if (!Number.isSafeInteger(limit.limit) || limit.limit < 1)
    throw new TypeError(`createAgentRouter: rateLimit.${name}.limit must be a positive integer`);
  if (!Number.isSafeInteger(limit.windowMs) || limit.windowMs < 1000)
    throw new TypeError(`createAgentRouter: rateLimit.${name}.windowMs must be at least 1000`);
}

function limiter(
  name: 'key' | 'auth',
  limit: Limit,
  key: (req: Request, res: Response) => string,
  message: string,
  store: RateLimitOptions['store'],
): RequestHandler {
  return limits().rateLimit({
    windowMs: limit.windowMs,
    limit: limit.limit,
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    keyGenerator: key,
    handler: refuse(message),
    validate: { xForwardedForHeader: false },
    // A counter store that is down must not refuse requests: they then meet the outage where it matters.
    passOnStoreError: true,
    ...(store && { store: store(name) }),
  });
}

/**
 * The limiter of failed authentications, per client address (as Express sees it: set `trust proxy`
 * behind a proxy). The router runs it only for a request whose key was refused, so only failures
 * count (concurrent valid requests never do), and past the limit those requests get 429 instead of
 * 401: guessing stops, while valid keys from the same address go on working.
 */
export function failedAuthLimiter(options: RateLimitOptions): RequestHandler | undefined {
  if (!options.failedAuth) return undefined;
  check('failedAuth', options.failedAuth);
  const { ipKeyGenerator } = limits();
  return limiter(
    'auth',
    options.failedAuth,
    (req) => `auth:${ipKeyGenerator(req.ip ?? 'unknown')}`,
    'Too many failed authentication attempts from this address; retry later',
    options.store,
  );
}

/**
 * The limiter of requests per API key. A key's counter is named by the key's keyed hash under
 * `keySecret`, never by the key or a bare digest of it.
 * @throws TypeError with a shared `store` but no `keySecret`, or a `keySecret` under 32 characters.
 */
export function perKeyLimiter(options: RateLimitOptions): RequestHandler | undefined {
  if (!options.perKey) return undefined;
  check('perKey', options.perKey);
  if (options.store && options.keySecret === undefined) {
    throw new TypeError(
      "createAgentRouter: rateLimit.keySecret is required with a shared counter store, so that every server names a key's counter alike",
    );
  }
  // Counters in this process's memory are named for this process only: any secret will do.
  const secret = options.keySecret ?? randomBytes(32).toString('base64url');
  checkSecret(secret, 'createAgentRouter: rateLimit.keySecret');
  const name = limiterKeyNames(secret);
  // The limiter runs after the key check: a request with an account has a key worth remembering.
  const key = (req: Request, res: Response) =>
    name(req.get('x-api-key') ?? '', (res.locals.agenthost as RequestState | undefined)?.accountId !== undefined);
  return limiter('key', options.perKey, key, 'Rate limit reached for this API key; retry later', options.store);
}
