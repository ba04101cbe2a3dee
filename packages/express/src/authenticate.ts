import type { ApiKeyScope } from '@agenthost/core';
import type { Request, RequestHandler, Response } from 'express';
import type { KeyResolver } from './auth.js';
import { refusal } from './envelope.js';
import { failedAuthLimiter, type RateLimitOptions } from './rate-limits.js';
import { send, state } from './request-state.js';

/**
 * The key check: a request without a key the resolver knows is refused 401 (or 429 once its address
 * has failed too often, when `rateLimit.failedAuth` is set); an accepted one carries its account and
 * scopes on.
 */
export function authenticate(resolveKey: KeyResolver, rateLimit: RateLimitOptions = {}): RequestHandler {
  const limitFailedAuth = failedAuthLimiter(rateLimit);
  const refuse = (req: Request, res: Response, message: string) => {
    const answer = () => send(req, res, refusal('unauthenticated', message));
    return limitFailedAuth ? limitFailedAuth(req, res, answer) : answer();
  };
  return async function agentHostApiKeyAuth(req, res, next) {
    const key = req.get('x-api-key');
    if (!key) return refuse(req, res, 'Missing API key: send it in the x-api-key header');
    const auth = await resolveKey(key);
    if (!auth) return refuse(req, res, 'Invalid API key provided');
    state(res).accountId = auth.accountId;
    state(res).scopes = auth.scopes;
    next();
  };
}

/** Refuses, with 403, a key that lacks `scope`; the route table names each route's scope. */
export function requireScope(scope: ApiKeyScope): RequestHandler {
  return function agentHostRequireScope(req, res, next) {
    const scopes = state(res).scopes;
    if (scopes && !scopes.includes(scope))
      return send(req, res, refusal('forbidden', `This API key lacks the ${scope} scope`));
    next();
  };
}
