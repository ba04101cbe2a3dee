import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { REDACTED } from '@agenthost/core';
import { requestDetails } from '@agenthost/express';
import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** The request headers a line names only by `[redacted]`, when they were sent. */
const SECRET_HEADERS = ['x-api-key', 'authorization', 'cookie'] as const;

/** The request's id: the client's `x-request-id` when safe, else a new UUID. */
function requestIdOf(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

/** The headers of a request line: its user agent, and the secret ones it sent as `[redacted]` only. */
function loggedHeaders(headers: IncomingMessage['headers']): Record<string, unknown> {
  const logged: Record<string, unknown> = { 'user-agent': headers['user-agent'] };
  for (const name of SECRET_HEADERS) if (headers[name] !== undefined) logged[name] = REDACTED;
  return logged;
}

/** The request's path as the client sent it (Express rewrites `url` inside mounted routers). */
const pathOf = (req: Request) => req.originalUrl.split('?')[0];

/** A request's line: what it asked, what the router knows of it, and how it was answered. */
function requestLine(req: Request, res: Response, id: string, started: number, aborted: boolean) {
  const details = requestDetails(res);
  return {
    req: {
      method: req.method,
      url: req.originalUrl,
      remoteAddress: req.socket.remoteAddress,
      headers: loggedHeaders(req.headers),
    },
    ...(details.request_id === undefined && { request_id: id }),
    ...details,
    res: { statusCode: res.statusCode },
    responseTime: Date.now() - started,
    // The client went away before the whole answer was sent.
    ...(aborted && { aborted: true }),
  };
}

/**
 * One log line per request, written when its answer is sent (or its connection closes first): the
 * request id (the client's `x-request-id` when safe, else a new one; the API echoes it), method,
 * path, client address, account, status and latency, and for runs the model, tools and tokens; at
 * `error` level for a 5xx, else `info`. Keys, credentials and cookies appear only as `[redacted]`;
 * bodies (inputs and outputs) never, unless the router's `logContent` adds a run's.
 *
 * The line is made of these fields alone, never of the request or response objects, so it holds no
 * secret whatever the logger's redaction; a logger's own redaction and serializers still apply.
 */
export function requestLogger(logger: Logger): RequestHandler {
  return function agentHostRequestLog(req, res, next) {
    const started = Date.now();
    const id = requestIdOf(req);
    // The API's request context takes this id, so that the line and the answer's `x-request-id` agree.
    (req as Request & { id?: string }).id = id;
    const done = () => {
      res.off('finish', done);
      res.off('close', done);
      const line = requestLine(req, res, id, started, !res.writableFinished);
      const msg = `${req.method} ${pathOf(req)} ${res.statusCode}`;
      if (res.statusCode >= 500) logger.error(line, msg);
      else logger.info(line, msg);
    };
    res.on('finish', done);
    res.on('close', done);
    next();
  };
}
