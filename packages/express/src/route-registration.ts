import type { RequestHandler, Router } from 'express';
import { requireScope } from './authenticate.js';
import { chainMiddleware } from './chain.js';
import { refusal } from './envelope.js';
import { send } from './request-state.js';
import { allowOf, expressPath, type RouteDefinition, routesByPath } from './routes.js';

function methodNotAllowed(allow: string): RequestHandler {
  return function agentHostMethodNotAllowed(req, res) {
    send(
      req,
      res,
      refusal('method_not_allowed', `Method ${req.method} is not allowed here; allowed: ${allow}`, undefined, {
        Allow: allow,
      }),
    );
  };
}

/**
 * Registers `routes` on `router`: each path once, each method behind its scope check (none for a
 * public route), and every other method of the path answered 405 with the path's `Allow` list.
 */
export function registerRoutes(
  router: Router,
  routes: readonly RouteDefinition[],
  endpoints: ReadonlyMap<RouteDefinition, RequestHandler>,
): void {
  for (const [path, operations] of routesByPath(routes)) {
    const route = router.route(expressPath(path));
    for (const operation of operations) {
      const endpoint = endpoints.get(operation)!;
      route[operation.method](
        operation.scope ? chainMiddleware([requireScope(operation.scope), endpoint], { inRoute: true }) : endpoint,
      );
    }
    route.all(methodNotAllowed(allowOf(operations)));
  }
}

/** After every route: a path the table does not list is 404. */
export const routeNotFound: RequestHandler = function agentHostNotFound(req, res) {
  send(req, res, refusal('not_found', `Route not found: ${req.method} ${req.baseUrl}${req.path}`));
};
