import { createHash, timingSafeEqual } from 'node:crypto';
import { lazyPackage, type RunObservation } from '@agenthost/core';
import type { RequestHandler } from 'express';
import type { Gauge, Registry } from 'prom-client';

/** prom-client, loaded when metrics are first made: a router without metrics does not hold it. */
const promClient = lazyPackage<typeof import('prom-client')>('prom-client', {
  url: import.meta.url,
  resolve: import.meta.resolve,
});

/** The metrics of one server: hand it to the router and the service, serve it with {@link metricsHandler}. */
export interface AgentMetrics {
  registry: Registry;
  /** For `AgentService`'s `onRunFinished`. */
  observeRun(observation: RunObservation): void;
  /** Counts an error answered with this code (the router calls it). */
  observeError(code: string): void;
  /** Records requests by method, route template and status (the router mounts it). */
  requests: RequestHandler;
  /**
   * Reports the background runs of a service on every scrape: pass `() => service.backgroundRunCounts()`.
   * Until then the gauge reads 0.
   */
  observeBackgroundRuns(count: () => BackgroundRunCounts): void;
}

/** How many background runs a server is running, by status. */
export interface BackgroundRunCounts {
  queued: number;
  running: number;
}

/** The gauge of background runs, read from `source()` at each scrape. */
function backgroundRunGauge(registry: Registry, source: () => BackgroundRunCounts | undefined): Gauge {
  return new (promClient().Gauge)({
    name: 'agenthost_background_runs',
    help: 'Background runs this server is running now, by status',
    labelNames: ['status'],
    registers: [registry],
    collect() {
      const counts = source() ?? { queued: 0, running: 0 };
      this.set({ status: 'queued' }, counts.queued);
      this.set({ status: 'running' }, counts.running);
    },
  });
}

/**
 * Prometheus metrics (prom-client) of the API: requests and their latency by route and status, runs
 * by model and outcome, tokens by model, model-call latency, storage errors, background runs in
 * progress by status, and the process's own
 * metrics. Routes are labelled by template (`/api/v1/agents/:agentId/run`), never by raw path.
 */
export function createMetrics(options: { processMetrics?: boolean } = {}): AgentMetrics {
  const { Counter, collectDefaultMetrics, Histogram, Registry } = promClient();
  const registry = new Registry();
  if (options.processMetrics !== false) collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'agenthost_http_requests_total',
    help: 'HTTP requests answered',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'agenthost_http_request_duration_seconds',
    help: 'Time to answer an HTTP request',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [registry],
  });
  const runs = new Counter({
    name: 'agenthost_runs_total',
    help: 'Runs that reached their model call, by outcome',
    labelNames: ['model', 'outcome'],
    registers: [registry],
  });
  const tokens = new Counter({
    name: 'agenthost_tokens_total',
    help: 'Tokens of successful runs',
    labelNames: ['model', 'kind'],
    registers: [registry],
  });
  const provider = new Histogram({
    name: 'agenthost_provider_duration_seconds',
    help: 'Time the model provider took for a run (all steps and retries)',
    labelNames: ['model'],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120],
    registers: [registry],
  });
  const storageErrors = new Counter({
    name: 'agenthost_storage_errors_total',
    help: 'Requests answered 503 because the store was unavailable',
    registers: [registry],
  });
  let backgroundRuns: (() => BackgroundRunCounts) | undefined;
  backgroundRunGauge(registry, () => backgroundRuns?.());
  return {
    registry,
    observeBackgroundRuns(count) {
      backgroundRuns = count;
    },
    observeRun({ model, outcome, tokens: used, providerMs }) {
      runs.inc({ model, outcome });
      if (used) {
        tokens.inc({ model, kind: 'prompt' }, used.prompt);
        tokens.inc({ model, kind: 'completion' }, used.completion);
      }
      if (providerMs !== undefined) provider.observe({ model }, providerMs / 1000);
    },
    observeError(code) {
      if (code === 'storage_unavailable') storageErrors.inc();
    },
    requests: function agentHostMetrics(req, res, next) {
      const started = process.hrtime.bigint();
      res.once('finish', () => {
        const route = req.route?.path ? `${req.baseUrl}${req.route.path}` : 'unmatched';
        const labels = { method: req.method, route, status: String(res.statusCode) };
        requests.inc(labels);
        latency.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
      });
      next();
    },
  };
}

/** Serves the metrics in Prometheus's text format; with `token`, only to `Authorization: Bearer <token>`. */
export function metricsHandler(metrics: AgentMetrics, options: { token?: string } = {}): RequestHandler {
  const expected = options.token ? createHash('sha256').update(options.token).digest() : undefined;
  return async function agentHostMetricsEndpoint(req, res) {
    if (expected) {
      const given = /^Bearer (.+)$/.exec(req.get('authorization') ?? '')?.[1] ?? '';
      if (!timingSafeEqual(createHash('sha256').update(given).digest(), expected)) {
        res
          .status(401)
          .set({ 'WWW-Authenticate': 'Bearer', 'Cache-Control': 'no-store' })
          .type('text/plain')
          .send('metrics need the metrics token\n');
        return;
      }
    }
    res
      .set({ 'Content-Type': metrics.registry.contentType, 'Cache-Control': 'no-store' })
      .send(await metrics.registry.metrics());
  };
}
