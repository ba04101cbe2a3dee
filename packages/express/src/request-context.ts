import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { RequestState } from './request-state.js';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Whether `id` may be a request's id as given: 1-128 of letters, digits and `._:-` (safe to echo and log). */
export const isSafeRequestId = (id: unknown): id is string => typeof id === 'string' && REQUEST_ID.test(id);

/**
 * First in the chain: gives the request its id (the client's or a request logger's, when safe, else
 * a new UUID), sent back in `x-request-id`, and marks every answer as not cacheable.
 */
export const requestContext: RequestHandler = function agentHostRequestContext(req, res, next) {
  // A request logger in front (the host's `requestLogger`, or any that sets `req.id`) may have given the request its id already.
  const given =
    typeof (req as { id?: unknown }).id === 'string'
      ? ((req as { id?: string }).id as string)
      : req.get('x-request-id');
  const requestId = isSafeRequestId(given) ? given : randomUUID();
  res.locals.agenthost = { requestId } satisfies RequestState;
  res.set('x-request-id', requestId);
  // Answers are per caller and may hold their data: no cache may keep them.
  res.set('Cache-Control', 'no-store');
  res.removeHeader('X-Powered-By');
  next();
};
