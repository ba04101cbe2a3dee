import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { RequestHandler } from 'express';
import { state } from './request-state.js';

/**
 * A server span for each request, named by route template once the route is known, with its status,
 * request id and account; the active context while the request is handled, so run spans nest under it.
 */
export const tracing: RequestHandler = function agentHostTracing(req, res, next) {
  const span = trace.getTracer('agenthost').startSpan(`${req.method} ${req.baseUrl}`, {
    kind: SpanKind.SERVER,
    attributes: {
      'http.request.method': req.method,
      'url.path': (req.originalUrl ?? req.url).split('?')[0] ?? '',
      'agenthost.request_id': state(res).requestId,
    },
  });
  res.once('close', () => {
    const route = req.route?.path ? `${req.baseUrl}${req.route.path}` : undefined;
    if (route) {
      span.updateName(`${req.method} ${route}`);
      span.setAttribute('http.route', route);
    }
    span.setAttribute('http.response.status_code', res.statusCode);
    if (state(res).accountId) span.setAttribute('agenthost.account', state(res).accountId!);
    if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  });
  context.with(trace.setSpan(context.active(), span), next);
};
