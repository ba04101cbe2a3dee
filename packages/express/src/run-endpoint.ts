import type { AgentService } from '@agenthost/core';
import type { Request, RequestHandler, Response } from 'express';
import { apiRequest } from './api-request.js';
import type { EndpointOptions } from './endpoint-options.js';
import { refusal } from './envelope.js';
import { writeEventStream } from './event-stream.js';
import type { ApiHandler, FrameSource } from './handlers.js';
import { keepLog, send } from './request-state.js';

const wantsStream = (req: Request) =>
  (req.body as { stream?: unknown } | undefined)?.stream === true ||
  req.accepts(['application/json', 'text/event-stream']) === 'text/event-stream';

/** Streams a run's frames from `source`; failures before the first frame are thrown, so they are answered as JSON. */
async function sendEvents(
  service: AgentService,
  source: FrameSource,
  req: Request,
  res: Response,
  options: EndpointOptions,
): Promise<void> {
  const frames = await source(service, apiRequest(req, res), {
    bodyLimit: options.bodyLimit,
    onServerError: (error, status) => options.logServerError(req, res, error, status),
  });
  await writeEventStream(res, frames, options);
}

/**
 * A run (or an answer to an approval, which resumes one): one JSON answer through `handler` (kept
 * under `Idempotency-Key`), or server-sent events from `source` when the body's `stream` is true or
 * the client accepts only them.
 */
export function runEndpoint(
  service: AgentService,
  handler: ApiHandler,
  options: EndpointOptions,
  source: FrameSource,
): RequestHandler {
  return async function agentHostRun(req, res) {
    if (!wantsStream(req)) {
      const response = await handler(apiRequest(req, res));
      keepLog(res, response.log, options.logContent);
      return send(req, res, response);
    }
    if (req.get('idempotency-key') !== undefined) {
      return send(
        req,
        res,
        refusal('invalid_input', 'Idempotency-Key is not supported for streamed runs; send it without stream'),
      );
    }
    await sendEvents(service, source, req, res, options);
  };
}
