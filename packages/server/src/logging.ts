import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { REDACTED, redactSecrets } from '@agenthost/core';
import { type ErrorLogger, requestDetails } from '@agenthost/express';
import type { Response } from 'express';
import { type Logger, pino } from 'pino';
import { pinoHttp } from 'pino-http';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The request's path as the client sent it (Express rewrites `url` inside mounted routers). */
const path = (req: IncomingMessage) =>
  ((req as IncomingMessage & { originalUrl?: string }).originalUrl ?? req.url ?? '').split('?')[0];

/** The paths that must never reach a log: keys, credentials, cookies (for any line, the request log's included). */
export const REDACTED_PATHS = [
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
];

/** The headers of a request log line: its user agent, and the secret ones it sent as `[redacted]` only. */
function loggedHeaders(headers: Record<string, unknown>): Record<string, unknown> {
  const logged: Record<string, unknown> = { 'user-agent': headers['user-agent'] };
  for (const name of ['x-api-key', 'authorization', 'cookie']) if (headers[name] !== undefined) logged[name] = REDACTED;
  return logged;
}

/**
 * `err` fields: the router logs errors already described and redacted, as plain objects, which pino's
 * error serializer would take for errors (adding `type` and an empty `stack`); real errors still get it.
 */
const serializers = { err: (value: unknown) => (value instanceof Error ? pino.stdSerializers.err(value) : value) };

/** The server's logger: JSON lines, or readable lines when `pretty` (a terminal). */
export function createLogger(options: { level: string; pretty: boolean; destination?: NodeJS.WritableStream }): Logger {
  const base = { level: options.level, redact: { paths: REDACTED_PATHS, censor: REDACTED }, serializers };
  if (options.pretty)
    return pino({
      ...base,
      transport: {
        target: 'pino-pretty',
        options: { colorize: true, translateTime: 'SYS:HH:MM:ss.l', destination: 2 },
      },
    });
  return options.destination ? pino(base, options.destination as never) : pino(base);
}

/** A request's log line (`res`, `responseTime`, `err`) with what the router knows of the request. */
const withDetails = (res: ServerResponse, line: object) => ({ ...requestDetails(res as Response), ...line });

/**
 * One log line per request (pino-http): request id (the client's `x-request-id` when safe, else a new
 * one; the API echoes it), method, path, account, status and latency, and for runs the model, tool
 * and tokens. Bodies (inputs and outputs) are never logged.
 */
export function requestLogger(logger: Logger) {
  return pinoHttp({
    logger,
    genReqId: (req: IncomingMessage) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    // The router's details go into the line's own fields: `customProps` would make a child logger (and
    // stringify its bindings) for every request and again for every response, for the same line.
    customSuccessObject: (_req: IncomingMessage, res: ServerResponse, line: object) => withDetails(res, line),
    customErrorObject: (_req: IncomingMessage, res: ServerResponse, _error: Error, line: object) =>
      withDetails(res, line),
    serializers: {
      req: (req: {
        id: string;
        method: string;
        url: string;
        remoteAddress?: string;
        headers: Record<string, unknown>;
      }) => ({
        method: req.method,
        url: req.url,
        remoteAddress: req.remoteAddress,
        // Keys, credentials and cookies never reach the logger, whichever it is: only whether they were sent.
        headers: loggedHeaders(req.headers),
      }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
    customSuccessMessage: (req: IncomingMessage, res: ServerResponse) => `${req.method} ${path(req)} ${res.statusCode}`,
    customErrorMessage: (req: IncomingMessage, res: ServerResponse) => `${req.method} ${path(req)} ${res.statusCode}`,
  });
}

/**
 * Reports a store's connection errors (its `onError`): the error's text, with `secrets` and whatever
 * looks like a secret redacted, since a driver's message may quote its connection URL.
 */
export function storageErrorLog(logger: ErrorLogger, secrets: readonly string[]): (error: unknown) => void {
  return function logStorageError(error) {
    logger.error({ err: redactSecrets(String(error), { secrets }) }, 'Storage connection error');
  };
}
