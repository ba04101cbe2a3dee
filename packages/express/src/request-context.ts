import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { RequestHandler } from 'express';
import type { RequestState } from './request-state.js';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Whether `id` may be a request's id as given: 1-128 of letters, digits and `._:-` (safe to echo and log). */
export const isSafeRequestId = (id: unknown): id is string => typeof id === 'string' && REQUEST_ID.test(id);

/**
 * A request's id: the one a middleware in front gave it (`req.id`, as the host's request log or any
 * request-id middleware sets it) when safe, else the client's `x-request-id` when safe, else a new UUID.
 */
export function requestIdOf(req: { id?: unknown; headers: IncomingHttpHeaders }): string {
  if (isSafeRequestId(req.id)) return req.id;
  const given = req.headers['x-request-id'];
  return isSafeRequestId(given) ? given : randomUUID();
}

/**
 * First in the chain: gives the request its id ({@link requestIdOf}), sent back in `x-request-id`, and
 * marks every answer as not cacheable.
 */
export const requestContext: RequestHandler = function agentHostRequestContext(req, res, next) {
  const requestId = requestIdOf(req);
  res.locals.agenthost = { requestId } satisfies RequestState;
  res.set('x-request-id', requestId);
  // Answers are per caller and may hold their data: no cache may keep them.
  res.set('Cache-Control', 'no-store');
  res.removeHeader('X-Powered-By');
  next();
};
