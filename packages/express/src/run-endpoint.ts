import type { AgentService } from '@agenthost/core';
import type { Request, RequestHandler, Response } from 'express';
import { apiRequest } from './api-request.js';
import type { EndpointOptions } from './endpoint-options.js';
import { refusal } from './envelope.js';
import type { ApiHandler, FrameSource } from './handlers.js';
import { keepLog, send } from './request-state.js';

const wantsStream = (req: Request) =>
  (req.body as { stream?: unknown } | undefined)?.stream === true ||
  req.accepts(['application/json', 'text/event-stream']) === 'text/event-stream';

/** Writes a streamed run's frames as server-sent events (`id`, `event`, `data`), with a heartbeat, until `done` or `error`. */
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
  res.status(200).set({
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-cache, no-transform',
    'X-Accel-Buffering': 'no',
  });
  res.flushHeaders();
  // A comment line now and then keeps proxies from closing a quiet stream.
  const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), 15_000);
  // Each event's `id:` counts up from 1 within the stream, so a client can tell which it saw last.
  let id = 0;
  try {
    for await (const frame of frames) {
      if (res.destroyed) break;
      keepLog(res, frame.log, options.logContent);
      res.write(`id: ${++id}\nevent: ${frame.event}\ndata: ${JSON.stringify(frame.data)}\n\n`);
    }
  } finally {
    clearInterval(heartbeat);
    res.end();
  }
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
