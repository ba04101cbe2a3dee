import type { IncomingMessage } from 'node:http';
import { REDACTED } from '@agenthost/core';
import { requestDetails, requestIdOf } from '@agenthost/express';
import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { requestLineLogger, SECRET_REQUEST_HEADERS } from './logging.js';

/** The headers of a request line: its user agent, and the secret ones it sent as `[redacted]` only. */
function loggedHeaders(headers: IncomingMessage['headers']): Record<string, unknown> {
  const logged: Record<string, unknown> = { 'user-agent': headers['user-agent'] };
  for (const name of SECRET_REQUEST_HEADERS) if (headers[name] !== undefined) logged[name] = REDACTED;
  return logged;
}

/** The request's path as the client sent it (Express rewrites `url` inside mounted routers). */
const pathOf = (req: Request) => (req.originalUrl ?? req.url).split('?')[0];

/** A request's line: what it asked, what the router knows of it, and how it was answered. */
function requestLine(req: Request, res: Response, id: string, started: number, remoteAddress: string | undefined) {
  const details = res.locals ? requestDetails(res) : {};
  return {
    req: {
      method: req.method,
      url: req.originalUrl ?? req.url,
      remoteAddress,
      headers: loggedHeaders(req.headers),
    },
    ...(details.request_id === undefined && { request_id: id }),
    ...details,
    // No status was sent when the connection closed before the answer began.
    res: { statusCode: res.headersSent ? res.statusCode : null },
    responseTime: Date.now() - started,
    // The client went away before the whole answer was sent.
    ...(!res.writableFinished && { aborted: true }),
  };
}

/**
 * One log line per request (`info`), written when its answer is sent (or its connection closes
 * first): the request id (the client's `x-request-id` when safe, else a new one; the API echoes it),
 * method, path, client address, account, status and latency, and for runs the model, tools and
 * tokens. Keys, credentials and cookies appear only as `[redacted]`; bodies (inputs and outputs)
 * never, unless the router's `logContent` adds a run's.
 *
 * The line is made of these fields alone, never of the request or response objects, so it holds no
 * secret whatever the logger; a logger other than one `createLogger` made keeps its own redaction and
 * serializers for these lines.
 */
export function requestLogger(logger: Logger): RequestHandler {
  const lines = requestLineLogger(logger);
  return function agentHostRequestLog(req, res, next) {
    // A logger set above `info` (`silent`, say) writes no request line: none is made.
    if (!lines.isLevelEnabled('info')) {
      next();
      return;
    }
    const started = Date.now();
    const id = requestIdOf(req);
    // Read now: a socket the client has closed no longer has its address.
    const remoteAddress = req.socket.remoteAddress;
    // The API's request context takes this id, so that the line and the answer's `x-request-id` agree.
    (req as Request & { id?: string }).id = id;
    // A response emits 'close' once, whether its answer was sent in whole (just after 'finish') or its
    // connection closed first.
    res.on('close', () => {
      const line = requestLine(req, res, id, started, remoteAddress);
      lines.info(line, `${req.method} ${pathOf(req)} ${line.res.statusCode ?? '-'}`);
    });
    next();
  };
}
