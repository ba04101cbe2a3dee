import type { Request, Response } from 'express';
import type { AuthContext } from './auth.js';
import { type ApiResponse, type RequestLog, serialize } from './envelope.js';

/** What the router keeps of a request while it handles it, in `res.locals.agenthost`. */
export interface RequestState {
  requestId: string;
  accountId?: string;
  scopes?: AuthContext['scopes'];
  /** Set when the client went away before the answer was sent. */
  clientGone?: boolean;
  /** The agent and session the handler reported, for the request log. */
  agentId?: string;
  sessionId?: string;
  /** For a run that answered: what a request log may say about it (its input and output only with `logContent`). */
  run?: NonNullable<RequestLog['run']> & { input?: string; output?: string };
}

/** The content type of every JSON answer. */
export const JSON_TYPE = 'application/json; charset=utf-8';

/** The request's state; set by the request-context middleware, first in the chain. */
export function state(res: Response): RequestState {
  return res.locals.agenthost as RequestState;
}

/** Keeps what a handler says a log line needs; a run's input and output only when `logContent` allows. */
export function keepLog(res: Response, log: RequestLog | undefined, logContent: boolean | undefined): void {
  if (log?.agent_id !== undefined) state(res).agentId = log.agent_id;
  if (log?.session_id !== undefined) state(res).sessionId = log.session_id;
  if (!log?.run) return;
  state(res).run = {
    ...log.run,
    ...(logContent && log.input !== undefined && { input: log.input }),
    ...(logContent && log.output !== undefined && { output: log.output }),
  };
}

/**
 * What the router knows of a request, for a request logger: its id, account, the agent and session
 * its handler reported and, for runs, model, tool and tokens.
 */
export function requestDetails(res: Response): {
  request_id?: string;
  account?: string;
  agent_id?: string;
  session_id?: string;
  run?: RequestState['run'];
} {
  const s = res.locals.agenthost as RequestState | undefined;
  if (!s) return {};
  return {
    request_id: s.requestId,
    ...(s.accountId && { account: s.accountId }),
    ...(s.agentId && { agent_id: s.agentId }),
    ...(s.sessionId && { session_id: s.sessionId }),
    ...(s.run && { run: s.run }),
  };
}

/**
 * Sends `response` as JSON, indented when the query asks for `pretty=true`. Written with `res.end`
 * rather than `res.send`: every answer is `no-store`, so the ETag `res.send` would hash out of each
 * body could never serve a conditional request.
 */
export function send(req: Request, res: Response, response: ApiResponse): void {
  const body = serialize(response.body, req.query?.pretty === 'true');
  res.status(response.status).set('Content-Type', JSON_TYPE);
  if (response.headers) res.set(response.headers);
  res.set('Content-Length', String(Buffer.byteLength(body, 'utf8'))).end(body, 'utf8');
}
