import { chainMiddleware, failure, refusal, serialize } from '@agenthost/express';
import express from 'express';
import { landingPage } from './landing-page.js';
import { PLAYGROUND_PATH } from './playground.js';
import { mountReferencePage, REFERENCE_PAGE_PATH } from './reference-page.js';

/**
 * Answers an HTTP/1.1 request without a Host header with a 400 envelope. Node's own check
 * (`requireHostHeader`, on by default) answers before any listener with an empty body, so the server
 * turns it off and checks here instead.
 */
function hostRequired(req: express.Request, res: express.Response, next: express.NextFunction): void {
  if (req.httpVersion !== '1.1' || req.headers.host !== undefined) {
    next();
    return;
  }
  const body = serialize(
    refusal('malformed_request', 'Bad request: an HTTP/1.1 request needs a Host header').body,
    false,
  );
  res
    .writeHead(400, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(body),
      'Cache-Control': 'no-store',
      Connection: 'close',
    })
    .end(body);
}

function notFound(req: express.Request, res: express.Response): void {
  res
    .status(404)
    .type('application/json; charset=utf-8')
    .send(
      serialize(refusal('not_found', `Route not found: ${req.method} ${req.path}`).body, req.query?.pretty === 'true'),
    );
}

function lastResort(error: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction): void {
  const status =
    typeof (error as { status?: unknown })?.status === 'number' && (error as { status: number }).status < 500
      ? (error as { status: number }).status
      : 500;
  const response = failure(status, status === 500 ? 'Internal server error' : 'Bad request');
  res.status(response.status).type('application/json; charset=utf-8').send(serialize(response.body, false));
}

/**
 * The standalone app around a host's router (given without its in-flight count: the app counts every
 * request once, first): the API at `/api/v1` and `/api`, health and metrics at
 * the root, the reference page at `/docs`, the playground at `/playground` (when given), a page at `/`
 * pointing to both, and envelopes for everything else.
 */
export function createHostApp(parts: {
  router: express.Router;
  operational: express.Router;
  track: express.RequestHandler;
  trustProxy: boolean | number | string;
  requestLog?: express.RequestHandler | undefined;
  playground?: express.Router | undefined;
}): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', parts.trustProxy);
  app.use(chainMiddleware([hostRequired, parts.track, ...(parts.requestLog ? [parts.requestLog] : [])]));
  // The API first: its requests pass no other router. Under it, the router answers every path itself.
  app.use(['/api/v1', '/api'], parts.router);
  app.use(parts.operational);
  // The interactive API reference, over the document the router serves.
  mountReferencePage(app, '/api/v1/openapi.json');
  if (parts.playground) app.use(PLAYGROUND_PATH, parts.playground);
  app.get('/', landingPage(parts.playground ? PLAYGROUND_PATH : undefined, REFERENCE_PAGE_PATH));
  app.use(notFound);
  app.use(lastResort);
  return app;
}
