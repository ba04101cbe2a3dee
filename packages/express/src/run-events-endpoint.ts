import type { AgentService } from '@agenthost/core';
import type { Request, RequestHandler, Response } from 'express';
import { apiRequest } from './api-request.js';
import { backgroundFrames } from './background-run-stream.js';
import type { EndpointOptions } from './endpoint-options.js';
import { eventCursor } from './event-cursor.js';
import { openEventStream, writeEventStream } from './event-stream.js';
import type { ApiRequest } from './handlers.js';

/**
 * Where the reading starts. A bad `Last-Event-ID` or `after` is a 400, but only for a run the caller
 * may see: an unknown run (or another account's) is a 404 whatever the cursor.
 */
async function startAfter(service: AgentService, req: Request, request: ApiRequest): Promise<number> {
  try {
    return eventCursor({ lastEventId: req.get('last-event-id'), query: request.query });
  } catch (error) {
    await service.getRun(request.accountId, request.params.runId ?? '');
    throw error;
  }
}

/** A HEAD request: the run is looked up, and the stream's headers answered without reading it. */
async function answerHead(service: AgentService, request: ApiRequest, res: Response): Promise<void> {
  await service.getRun(request.accountId, request.params.runId ?? '');
  openEventStream(res);
  res.end();
}

/**
 * `GET /runs/{runId}/events`: the background run's events as server-sent events (whatever the
 * client accepts), each with its id in the run, from just after `Last-Event-ID` (or `?after=`), as
 * they are written, ending after the run's last event. An unknown run and a bad cursor are answered
 * as JSON before the stream starts; the client going away ends the reading, never the run.
 */
export function runEventsEndpoint(service: AgentService, options: EndpointOptions): RequestHandler {
  return async function agentHostRunEvents(req, res) {
    const request = apiRequest(req, res);
    const after = await startAfter(service, req, request);
    if (req.method === 'HEAD') return answerHead(service, request, res);
    const { accountId, signal } = request;
    const runId = request.params.runId ?? '';
    // Called here, not inside the frames, so that an unknown run is a JSON 404 before the stream starts.
    const records = await service.runEvents(accountId, runId, { after, ...(signal && { signal }) });
    const frames = backgroundFrames(async () => records, {
      bodyLimit: options.bodyLimit,
      signal,
      onServerError: (error, status) => options.logServerError(req, res, error, status),
    });
    await writeEventStream(res, frames, options);
  };
}
