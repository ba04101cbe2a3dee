import type { Request, Response } from 'express';
import type { ApiRequest } from './handlers.js';
import { state } from './request-state.js';

/**
 * The request as the framework-neutral handlers see it; its signal aborts when the client goes away
 * (at once when it went before the handler started).
 */
export function apiRequest(req: Request, res: Response): ApiRequest {
  const aborted = new AbortController();
  const gone = () => {
    if (res.writableFinished || aborted.signal.aborted) return;
    state(res).clientGone = true;
    aborted.abort(new Error('The client closed the connection'));
  };
  res.on('close', gone);
  // Gone before the handler started: its `close` came already.
  if (res.closed || res.destroyed || res.socket?.destroyed) gone();
  return {
    accountId: state(res).accountId!,
    params: req.params as Record<string, string>,
    query: req.query as Record<string, unknown>,
    body: req.body ?? {},
    baseUrl: req.baseUrl,
    ...(req.get('idempotency-key') !== undefined && { idempotencyKey: req.get('idempotency-key')! }),
    ...(req.get('x-session-id') !== undefined && { sessionId: req.get('x-session-id')! }),
    signal: aborted.signal,
  };
}
