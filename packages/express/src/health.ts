import { Router } from 'express';
import { type ApiResponse, refusal, serialize, success } from './envelope.js';

const HEALTHZ = '/healthz';
const READYZ = '/readyz';
/** The paths {@link createHealthRouter} answers, for an app that sends only those to it. */
export const HEALTH_PATHS: readonly string[] = [HEALTHZ, READYZ];

/** Options of {@link createHealthRouter}. */
export interface HealthOptions {
  /** Readiness checks by name: each resolves when its dependency answers (e.g. `storage: () => store.ping()`). */
  checks?: Record<string, () => Promise<unknown>>;
  /** True once the server is shutting down: readiness then fails, so balancers stop sending work. */
  draining?: () => boolean;
  /** Bound on each check, in ms (default 2 000). */
  timeoutMs?: number;
}

/**
 * `GET /healthz` (the process is alive: always 200) and `GET /readyz` (every check answers and the
 * server is not draining: 200, else 503 naming what failed), in the envelope, without authentication.
 * Mount it at the root of the app, outside the API's prefixes.
 */
export function createHealthRouter(options: HealthOptions = {}): Router {
  const timeoutMs = options.timeoutMs ?? 2_000;
  const router = Router();
  const send = (res: import('express').Response, response: ApiResponse) => {
    res.status(response.status).set({ 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' });
    if (response.headers) res.set(response.headers);
    res.send(serialize(response.body, false));
  };
  router.get(HEALTHZ, function agentHostHealthz(_req, res) {
    send(res, success({ status: 'alive' }));
  });
  router.get(READYZ, async function agentHostReadyz(_req, res) {
    if (options.draining?.())
      return send(res, refusal('not_ready', 'Not ready: shutting down', undefined, { 'Retry-After': '5' }));
    const results = await Promise.all(
      Object.entries(options.checks ?? {}).map(async ([name, check]) => {
        let timer: NodeJS.Timeout | undefined;
        try {
          await Promise.race([
            check(),
            new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('timeout')), timeoutMs))),
          ]);
          return [name, 'ok'] as const;
        } catch {
          return [name, 'unavailable'] as const;
        } finally {
          clearTimeout(timer);
        }
      }),
    );
    const failed = results.filter(([, state]) => state !== 'ok').map(([name]) => name);
    if (failed.length)
      return send(
        res,
        refusal('not_ready', `Not ready: ${failed.join(', ')} unavailable`, undefined, { 'Retry-After': '5' }),
      );
    send(res, success({ status: 'ready', checks: Object.fromEntries(results) }));
  });
  return router;
}
