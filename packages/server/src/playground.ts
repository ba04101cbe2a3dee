import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { refusal, serialize } from '@agenthost/express';
import { PLAYGROUND_INDEX, playgroundDir } from '@agenthost/playground';
import express from 'express';

/** Where the standalone server serves the playground. */
export const PLAYGROUND_PATH = '/playground';

/**
 * The playground page's Content-Security-Policy: its script, styles and API calls come from this
 * server only; nothing is framed, embedded or posted elsewhere.
 */
export const PLAYGROUND_CSP = [
  "default-src 'self'",
  "connect-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Hashed files change name when they change: cached for a year. The page itself is revalidated on each load. */
function cacheHeaders(res: express.Response, path: string): void {
  const hashed = path.startsWith(join(playgroundDir, 'assets'));
  res.setHeader('Cache-Control', hashed ? 'public, max-age=31536000, immutable' : 'no-cache');
}

function securityHeaders(_req: express.Request, res: express.Response, next: express.NextFunction): void {
  res.setHeader('Content-Security-Policy', PLAYGROUND_CSP);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  next();
}

/** The page's URLs are relative (`./assets/...`), so it must be served from a path that ends in `/`. */
function trailingSlash(req: express.Request, res: express.Response, next: express.NextFunction): void {
  const [path, query] = req.originalUrl.split('?', 2);
  if (req.path === '/' && !path?.endsWith('/')) res.redirect(301, `${path}/${query === undefined ? '' : `?${query}`}`);
  else next();
}

function notBuilt(req: express.Request, res: express.Response): void {
  const built = existsSync(join(playgroundDir, PLAYGROUND_INDEX));
  const message = built ? `Not found: ${req.originalUrl.split('?')[0]}` : 'The playground is not built';
  res
    .status(404)
    .type('application/json; charset=utf-8')
    .send(serialize(refusal('not_found', message).body, false));
}

/**
 * The playground's static files (`@agenthost/playground`), with their caching and a strict
 * Content-Security-Policy, for an app to mount at {@link PLAYGROUND_PATH}:
 * `app.use('/playground', playgroundRouter())`. The page calls the API at `/api/v1` on the same
 * origin, so the API must be mounted there too.
 */
export function playgroundRouter(): express.Router {
  const router = express.Router();
  router.use(securityHeaders);
  router.get('/', trailingSlash);
  router.use(
    express.static(playgroundDir, {
      index: PLAYGROUND_INDEX,
      cacheControl: false,
      dotfiles: 'ignore',
      fallthrough: true,
      redirect: false,
      setHeaders: cacheHeaders,
    }),
  );
  router.use(notBuilt);
  return router;
}
