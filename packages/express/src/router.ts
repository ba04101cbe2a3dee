import { randomUUID } from 'node:crypto';
import type { AgentService } from '@agenthost/core';
import { AgentHostError, type ApiKeyScope, jsonDepth, jsonLength, redactSecrets } from '@agenthost/core';
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import bytes from 'bytes';
import express, { type ErrorRequestHandler, type Request, type RequestHandler, type Response } from 'express';
import type { AuthContext, KeyResolver } from './auth.js';
import { type ApiResponse, failure, serialize } from './envelope.js';
import { describeError } from './error-log.js';
import { type ApiHandler, type ApiRequest, createHandlers, streamRun } from './handlers.js';
import { errorResponse } from './http-errors.js';
import { type IdempotencyOptions, idempotent } from './idempotency.js';
import type { AgentMetrics } from './metrics.js';
import { openApiDocument } from './openapi.js';
import { failedAuthLimiter, perKeyLimiter, type RateLimitOptions } from './rate-limits.js';

/**
 * Where unexpected errors are reported; a pino logger fits. Never given a key, a request body, a
 * prompt or a provider's error body: a provider failure is its summary, anything else is redacted.
 */
export interface ErrorLogger {
  error(fields: Record<string, unknown>, message: string): void;
}

/** The router of the API, and the error handler that goes right after it when the host parses bodies itself. */
export type AgentRouter = express.Router & {
  /**
   * Answers with envelopes the errors that the host's own middleware raises for requests to the API
   * before the router runs, such as a host-wide `express.json()` refusing malformed JSON (400) or a
   * body over its limit (413); a missing or wrong key is answered 401 first. Mount it right after the
   * router: `app.use(['/api/v1', '/api'], router, router.errorHandler)`. Not needed when the router is
   * mounted before any body parser (then it parses bodies itself, after checking the key).
   */
  errorHandler: ErrorRequestHandler;
};

/** Options of {@link createAgentRouter}. */
export interface AgentRouterOptions {
  /** Turns an `x-api-key` value into an account, or `null`. See `staticKeys`. Required. */
  resolveKey: KeyResolver;
  /** Largest accepted JSON body, in bytes or as `'1mb'`-style text (default `'1mb'`). */
  bodyLimit?: string | number;
  /** Receives unexpected errors with the request id (default: one JSON line on stderr). */
  logger?: ErrorLogger;
  /**
   * Values that must never reach the error log: configured API keys, provider keys, tokens. They are
   * redacted wherever they appear, on top of whatever looks like a secret (see `redactSecrets`).
   */
  redact?: readonly string[];
  /**
   * Where `Idempotency-Key` records live and how their claim is locked; give the store's and the
   * lock provider of servers that share a store. Default: this process's memory.
   */
  idempotency?: IdempotencyOptions;
  /** Rate limits per API key and on failed authentication per client address. Off unless given. */
  rateLimit?: RateLimitOptions;
  /** Records request and error metrics (see `createMetrics`). Off unless given. */
  metrics?: AgentMetrics;
  /**
   * OpenTelemetry: a server span for each request (named by route template, with status and request
   * id), the active context while the request is handled, so the service's run spans nest under it.
   * Spans go to the application's tracer provider. Off unless true.
   */
  tracing?: boolean;
  /** Lets request logs (`requestDetails`) include a run's input and output. Off unless true. */
  logContent?: boolean;
}

interface RequestState {
  requestId: string;
  accountId?: string;
  scopes?: AuthContext['scopes'];
  /** Set when the client went away before the answer was sent. */
  clientGone?: boolean;
  /** For a run that answered: what a request log may say about it (its input and output only with `logContent`). */
  run?: {
    model: string;
    tool_used: string | null;
    tokens: { prompt: number; completion: number; total: number };
    input?: string;
    output?: string;
  };
}

const JSON_TYPE = 'application/json; charset=utf-8';
const JSON_BODY_TYPES = ['application/json', 'application/*+json'];
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** Deepest nesting a JSON body may have; deeper bodies are refused before anything walks them. */
export const MAX_JSON_DEPTH = 64;

const stderrLogger: ErrorLogger = {
  error(fields, message) {
    process.stderr.write(
      `${JSON.stringify({ level: 'error', time: new Date().toISOString(), msg: message, ...fields })}\n`,
    );
  },
};

function state(res: Response): RequestState {
  return res.locals.agenthost as RequestState;
}

function runDetails(metadata: NonNullable<RequestState['run']>): NonNullable<RequestState['run']> {
  return { model: metadata.model, tool_used: metadata.tool_used, tokens: metadata.tokens };
}

/** What the router knows of a request, for a request logger: its id, account and, for runs, model, tool and tokens. */
export function requestDetails(res: Response): { request_id?: string; account?: string; run?: RequestState['run'] } {
  const s = res.locals.agenthost as RequestState | undefined;
  if (!s) return {};
  return { request_id: s.requestId, ...(s.accountId && { account: s.accountId }), ...(s.run && { run: s.run }) };
}

function send(req: Request, res: Response, response: ApiResponse): void {
  res.status(response.status).set('Content-Type', JSON_TYPE);
  if (response.headers) res.set(response.headers);
  res.send(serialize(response.body, req.query?.pretty === 'true'));
}

/**
 * The agenthost HTTP API as an Express 5 router. Mount it where the API should live; the contract
 * serves it under both `/api/v1` and `/api`:
 *
 * @example
 * const app = express();
 * app.use(['/api/v1', '/api'], createAgentRouter(service, { resolveKey: staticKeys([{ account: 'acme', key }]) }));
 *
 * Every request needs a valid `x-api-key`; every answer, errors and unknown routes under the mount
 * point included, is a JSON envelope. Unexpected errors answer a generic 500 and are logged once with
 * the request id, which is also sent back in `x-request-id`.
 *
 * @throws TypeError at creation when `service` or `resolveKey` is missing.
 */
export function createAgentRouter(service: AgentService, options: AgentRouterOptions): AgentRouter {
  if (!service || typeof service.runAgent !== 'function')
    throw new TypeError('createAgentRouter: an AgentService is required');
  if (typeof options?.resolveKey !== 'function')
    throw new TypeError('createAgentRouter: options.resolveKey is required (see staticKeys)');
  const { resolveKey } = options;
  const bodyLimit = options.bodyLimit ?? '1mb';
  const logger = options.logger ?? stderrLogger;
  // Copied: a caller's later changes to its array must not change what is redacted.
  const secrets = [...(options.redact ?? [])];
  const handlers = createHandlers(service);
  const once = { ...options.idempotency, bodyLimit };
  const createOnce = idempotent('create', handlers.createAgent, once);
  const runOnce = idempotent('run', handlers.runAgent, once);
  const router = express.Router({ caseSensitive: true, strict: false });

  if (options.metrics) router.use(options.metrics.requests);

  const requestContext: RequestHandler = function agentHostRequestContext(req, res, next) {
    // A request logger in front (pino-http) may have given the request its id already.
    const given =
      typeof (req as { id?: unknown }).id === 'string'
        ? ((req as { id?: string }).id as string)
        : req.get('x-request-id');
    const requestId = given && REQUEST_ID.test(given) ? given : randomUUID();
    res.locals.agenthost = { requestId } satisfies RequestState;
    res.set('x-request-id', requestId);
    // Answers are per caller and may hold their data: no cache may keep them.
    res.set('Cache-Control', 'no-store');
    res.removeHeader('X-Powered-By');
    next();
  };
  router.use(requestContext);

  // The API's own description is public, like any published API reference.
  const document = openApiDocument();
  router
    .route('/openapi.json')
    .get(function agentHostOpenApi(req, res) {
      res
        .status(200)
        .set('Content-Type', JSON_TYPE)
        .send(JSON.stringify(document, null, req.query?.pretty === 'true' ? 2 : undefined));
    })
    .all(function agentHostOpenApiMethods(req, res) {
      send(
        req,
        res,
        failure(405, `Method ${req.method} is not allowed here; allowed: GET, HEAD`, undefined, { Allow: 'GET, HEAD' }),
      );
    });

  const limitFailedAuth = failedAuthLimiter(options.rateLimit ?? {});
  const refuse = (req: Request, res: Response, message: string) =>
    limitFailedAuth
      ? limitFailedAuth(req, res, () => send(req, res, failure(401, message)))
      : send(req, res, failure(401, message));

  if (options.tracing) {
    router.use(function agentHostTracing(req, res, next) {
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
    });
  }

  const authenticate: RequestHandler = async function agentHostApiKeyAuth(req, res, next) {
    const key = req.get('x-api-key');
    if (!key) return refuse(req, res, 'Missing API key: send it in the x-api-key header');
    const auth = await resolveKey(key);
    if (!auth) return refuse(req, res, 'Invalid API key provided');
    state(res).accountId = auth.accountId;
    state(res).scopes = auth.scopes;
    next();
  };
  router.use(authenticate);

  const limitPerKey = perKeyLimiter(options.rateLimit ?? {});
  if (limitPerKey) router.use(limitPerKey);

  router.use(function agentHostRequireJson(req, res, next) {
    const hasBody = req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] ?? '0') !== '0';
    if (hasBody && !req.is(JSON_BODY_TYPES)) {
      return send(req, res, failure(415, 'Unsupported content type: send the body as application/json'));
    }
    next();
  });

  const limitBytes = typeof bodyLimit === 'number' ? bodyLimit : (bytes.parse(bodyLimit) ?? Number.POSITIVE_INFINITY);
  router.use(function agentHostParsedBody(req, res, next) {
    // A host's own body parser in front has read the body already (ours then skips it): hold it to
    // this router's size limit too, measured as its JSON text (whatever the transfer: chunked,
    // compressed). Its depth is checked below, as for bodies parsed here.
    if (
      req.body !== undefined &&
      (Number(req.get('content-length') ?? 0) > limitBytes || jsonLength(req.body, limitBytes) > limitBytes)
    ) {
      return send(req, res, failure(413, `Request body is larger than the limit of ${bodyLimit}`));
    }
    next();
  });
  router.use(express.json({ limit: bodyLimit, strict: true, type: JSON_BODY_TYPES }));
  router.use(function agentHostJsonDepth(req, res, next) {
    if (req.body !== undefined && jsonDepth(req.body, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) {
      return send(req, res, failure(400, `The JSON body is nested more than ${MAX_JSON_DEPTH} levels deep`));
    }
    next();
  });

  const logServerError = (req: Request, res: Response, error: unknown, status: number, unexpected = false) => {
    logger.error(
      {
        request_id: state(res)?.requestId,
        method: req.method,
        path: `${req.baseUrl}${req.path}`,
        status,
        err: describeError(error, secrets),
      },
      unexpected
        ? 'Unexpected error while handling a request'
        : error instanceof Error
          ? redactSecrets(error.message, { secrets })
          : 'Error while handling a request',
    );
  };

  const apiRequest = (req: Request, res: Response): ApiRequest => {
    const aborted = new AbortController();
    res.on('close', () => {
      if (res.writableFinished) return;
      state(res).clientGone = true;
      aborted.abort(new Error('The client closed the connection'));
    });
    return {
      accountId: state(res).accountId!,
      params: req.params as Record<string, string>,
      query: req.query as Record<string, unknown>,
      body: req.body ?? {},
      baseUrl: req.baseUrl,
      ...(req.get('idempotency-key') !== undefined && { idempotencyKey: req.get('idempotency-key')! }),
      signal: aborted.signal,
    };
  };

  const handle = (handler: ApiHandler): RequestHandler =>
    async function agentHostHandler(req, res) {
      send(req, res, await handler(apiRequest(req, res)));
    };

  const wantsStream = (req: Request) =>
    (req.body as { stream?: unknown } | undefined)?.stream === true ||
    req.accepts(['application/json', 'text/event-stream']) === 'text/event-stream';

  const run: RequestHandler = async function agentHostRun(req, res) {
    if (!wantsStream(req)) {
      const response = await runOnce(apiRequest(req, res));
      if (response.body.success) {
        const data = response.body.data as { output: string; metadata: NonNullable<RequestState['run']> };
        state(res).run = {
          ...runDetails(data.metadata),
          ...(options.logContent && {
            input: String(
              (req.body as { input?: unknown; input_data?: unknown }).input ??
                (req.body as { input_data?: unknown }).input_data ??
                '',
            ),
            output: data.output,
          }),
        };
      }
      return send(req, res, response);
    }
    if (req.get('idempotency-key') !== undefined) {
      return send(req, res, failure(400, 'Idempotency-Key is not supported for streamed runs; send it without stream'));
    }
    const request = apiRequest(req, res);
    const frames = await streamRun(service, request, {
      bodyLimit,
      onServerError: (error, status) => logServerError(req, res, error, status),
    });
    res.status(200).set({
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      'X-Accel-Buffering': 'no',
    });
    res.flushHeaders();
    // A comment line now and then keeps proxies from closing a quiet stream.
    const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), 15_000);
    try {
      for await (const frame of frames) {
        if (res.destroyed) break;
        if (frame.event === 'done')
          state(res).run = runDetails((frame.data as { metadata: RequestState['run'] & object }).metadata);
        res.write(`event: ${frame.event}\ndata: ${JSON.stringify(frame.data)}\n\n`);
      }
    } finally {
      clearInterval(heartbeat);
      res.end();
    }
  };

  /** Refuses, with 403, a key that lacks `scope`. */
  const may = (scope: ApiKeyScope): RequestHandler =>
    function agentHostRequireScope(req, res, next) {
      const scopes = state(res).scopes;
      if (scopes && !scopes.includes(scope))
        return send(req, res, failure(403, `This API key lacks the ${scope} scope`));
      next();
    };
  const [read, write, runs] = [may('agents:read'), may('agents:write'), may('agents:run')];

  const notAllowed = (allow: string): RequestHandler =>
    function agentHostMethodNotAllowed(req, res) {
      send(
        req,
        res,
        failure(405, `Method ${req.method} is not allowed here; allowed: ${allow}`, undefined, { Allow: allow }),
      );
    };

  router
    .route('/agents')
    .get(read, handle(handlers.listAgents))
    .post(write, handle(createOnce))
    .all(notAllowed('GET, HEAD, POST'));
  router
    .route('/agents/:agentId')
    .get(read, handle(handlers.getAgent))
    .patch(write, handle(handlers.updateAgent))
    .put(write, handle(handlers.updateAgent))
    .delete(write, handle(handlers.deleteAgent))
    .all(notAllowed('GET, HEAD, PATCH, PUT, DELETE'));
  router.route('/agents/:agentId/run').post(runs, run).all(notAllowed('POST'));
  router.route('/models').get(read, handle(handlers.listModels)).all(notAllowed('GET, HEAD'));
  router.route('/tools').get(read, handle(handlers.listTools)).all(notAllowed('GET, HEAD'));
  router.route('/agents/:agentId/sessions').get(read, handle(handlers.listSessions)).all(notAllowed('GET, HEAD'));
  router
    .route('/agents/:agentId/sessions/:sessionId')
    .get(read, handle(handlers.getSession))
    .delete(write, handle(handlers.deleteSession))
    .all(notAllowed('GET, HEAD, DELETE'));

  router.use(function agentHostNotFound(req, res) {
    send(req, res, failure(404, `Route not found: ${req.method} ${req.baseUrl}${req.path}`));
  });

  const onError: ErrorRequestHandler = function agentHostErrorHandler(error, req, res, next) {
    if (res.headersSent) return next(error);
    // A request abandoned by its client failed because of that; there is nobody to answer.
    if (state(res)?.clientGone || res.destroyed) return;
    const { response, unexpected } = errorResponse(error, { bodyLimit });
    if (AgentHostError.isInstance(error)) options.metrics?.observeError(error.code);
    if (response.status >= 500) logServerError(req, res, error, response.status, unexpected);
    send(req, res, response);
  };
  router.use(onError);
  const errorHandler: ErrorRequestHandler = function agentHostErrorsBefore(error, req, res, next) {
    if (res.headersSent) return next(error);
    requestContext(req, res, () => {
      // A key resolver that fails (its store is down) is answered like any error of the router.
      Promise.resolve(authenticate(req, res, () => onError(error, req, res, next))).catch((failed: unknown) =>
        onError(failed, req, res, next),
      );
    });
  };
  return Object.assign(router, { errorHandler });
}
