import { AgentHostError, redactSecrets } from '@agenthost/core';
import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import { describeError } from './error-log.js';
import { errorResponse } from './http-errors.js';
import type { AgentMetrics } from './metrics.js';
import { requestContext } from './request-context.js';
import { send, state } from './request-state.js';

/**
 * Where unexpected errors are reported; a pino logger fits. Never given a key, a request body, a
 * prompt or a provider's error body: a provider failure is its summary, anything else is redacted.
 */
export interface ErrorLogger {
  error(fields: Record<string, unknown>, message: string): void;
}

/** The default {@link ErrorLogger}: one JSON line on stderr. */
export const stderrLogger: ErrorLogger = {
  error(fields, message) {
    process.stderr.write(
      `${JSON.stringify({ level: 'error', time: new Date().toISOString(), msg: message, ...fields })}\n`,
    );
  },
};

/** Logs a failure answered with a 5xx, once, with the request id; secrets redacted. */
export type ServerErrorLog = (
  req: Request,
  res: Response,
  error: unknown,
  status: number,
  unexpected?: boolean,
) => void;

/** The {@link ServerErrorLog} writing to `logger`, redacting `secrets` and whatever looks like one. */
export function serverErrorLog(logger: ErrorLogger, secrets: readonly string[]): ServerErrorLog {
  return function logServerError(req, res, error, status, unexpected = false) {
    logger.error(
      {
        request_id: state(res)?.requestId,
        method: req.method,
        path: `${req.baseUrl}${req.path}`,
        status,
        err: describeError(error, secrets),
      },
      unexpected
        ? 'Unexpected error while handling a request'
        : error instanceof Error
          ? redactSecrets(error.message, { secrets })
          : 'Error while handling a request',
    );
  };
}

/** Options of {@link errorHandler}. */
export interface ErrorHandlerOptions {
  bodyLimit: string | number;
  logServerError: ServerErrorLog;
  metrics?: AgentMetrics;
}

/** Last in the chain: anything thrown becomes an envelope through the code-to-status table; 5xx are logged. */
export function errorHandler({ bodyLimit, logServerError, metrics }: ErrorHandlerOptions): ErrorRequestHandler {
  return function agentHostErrorHandler(error, req, res, next) {
    if (res.headersSent) return next(error);
    // A request abandoned by its client failed because of that; there is nobody to answer.
    if (state(res)?.clientGone || res.destroyed) return;
    const { response, unexpected } = errorResponse(error, { bodyLimit });
    if (AgentHostError.isInstance(error)) metrics?.observeError(error.code);
    if (response.status >= 500) logServerError(req, res, error, response.status, unexpected);
    send(req, res, response);
  };
}

/**
 * The error handler for errors the host's own middleware raised before the router ran: the request
 * gets its context and its key check first (a missing key is 401 whatever else is wrong), then the
 * error is answered like any of the router's.
 */
export function errorsBefore(authenticate: RequestHandler, onError: ErrorRequestHandler): ErrorRequestHandler {
  return function agentHostErrorsBefore(error, req, res, next) {
    if (res.headersSent) return next(error);
    requestContext(req, res, () => {
      // A key resolver that fails (its store is down) is answered like any error of the router.
      Promise.resolve(authenticate(req, res, () => onError(error, req, res, next))).catch((failed: unknown) =>
        onError(failed, req, res, next),
      );
    });
  };
}
