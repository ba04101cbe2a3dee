import type { AgentService } from '@agenthost/core';
import type { RequestHandler } from 'express';
import { apiRequest } from './api-request.js';
import { streamBackgroundRun } from './background-run-stream.js';
import { chatEndpoint } from './chat-endpoint.js';
import { chatHandler } from './chat-handler.js';
import type { EndpointOptions } from './endpoint-options.js';
import { type ApiHandler, createHandlers, type FrameSource, streamApproval, streamRun } from './handlers.js';
import { wantsBackground } from './http-bodies.js';
import { idempotent } from './idempotency.js';
import { openApiDocument } from './openapi.js';
import { JSON_TYPE, keepLog, send } from './request-state.js';
import type { RouteDefinition, RouteHandlerName } from './routes.js';
import { runEndpoint } from './run-endpoint.js';
import { runEventsEndpoint } from './run-events-endpoint.js';

/** A run streamed: started in the background when the body says so (its events read back), else streamed as it runs. */
const streamAgentRun: FrameSource = (service, request, options) =>
  (wantsBackground(request.body) ? streamBackgroundRun : streamRun)(service, request, options);

/** The API's own description, served as it is (not in an envelope): it is public, like any published reference. */
function documentEndpoint(): RequestHandler {
  const document = openApiDocument();
  return function agentHostOpenApi(req, res) {
    res
      .status(200)
      .set('Content-Type', JSON_TYPE)
      .send(JSON.stringify(document, null, req.query?.pretty === 'true' ? 2 : undefined));
  };
}

/**
 * The Express endpoint of each route of `routes`: its handler over `service`, kept under
 * `Idempotency-Key` when the route says so, the run's streaming when it streams.
 */
export function endpoints(
  service: AgentService,
  routes: readonly RouteDefinition[],
  options: EndpointOptions,
): Map<RouteDefinition, RequestHandler> {
  const handlers: Record<Exclude<RouteHandlerName, 'openApiDocument' | 'runEvents'>, ApiHandler> = {
    ...createHandlers(service),
    chatAgent: chatHandler(service),
  };
  const once = { ...options.idempotency, bodyLimit: options.bodyLimit };
  const made = new Map<RouteDefinition, RequestHandler>();
  for (const route of routes) {
    if (route.handler === 'openApiDocument' || route.handler === 'runEvents') {
      made.set(route, route.handler === 'runEvents' ? runEventsEndpoint(service, options) : documentEndpoint());
      continue;
    }
    const handler = route.idempotency
      ? idempotent(route.idempotency, handlers[route.handler], once)
      : handlers[route.handler];
    made.set(
      route,
      route.streams === 'events'
        ? runEndpoint(
            service,
            handler,
            options,
            route.handler === 'respondToApproval' ? streamApproval : streamAgentRun,
          )
        : route.streams === 'ui-messages'
          ? chatEndpoint(service, handler, options)
          : async function agentHostHandler(req, res) {
              const response = await handler(apiRequest(req, res));
              keepLog(res, response.log, options.logContent);
              send(req, res, response);
            },
    );
  }
  return made;
}
