import type { HttpErrorCode } from './error-codes.js';

type Json = Record<string, unknown>;

/** A `$ref` into the document's `components`. */
export const ref = (kind: 'responses' | 'parameters' | 'headers' | 'schemas', name: string) => ({
  $ref: `#/components/${kind}/${name}`,
});

function errorMedia(error: string, code: HttpErrorCode, status: number): Json {
  return {
    'application/json': { schema: ref('schemas', 'ErrorEnvelope'), example: { success: false, error, code, status } },
  };
}

function errorResponse(
  description: string,
  status: number,
  code: HttpErrorCode,
  example: string,
  headers: Json = {},
): Json {
  return {
    description,
    headers: { 'x-request-id': ref('headers', 'XRequestId'), ...headers },
    content: errorMedia(example, code, status),
  };
}

/** The error answers, by the name `components.responses` gives them. */
export const ERROR_RESPONSES = {
  BadRequest: {
    ...errorResponse(
      "Bad request: malformed JSON, a body that is not an object or is nested more than 64 levels deep, a field of the wrong type, a required string missing or blank, an unsupported `model`, an unknown `tool`, an invalid `session_id`, a bad `limit`, `cursor`, `after` or `order`, an invalid `Idempotency-Key` (or one on a streamed run), a bad `Last-Event-ID` or `after` of a run's events, or a malformed URL. Validation errors carry `details`.",
      400,
      'invalid_input',
      'Invalid request format',
    ),
    content: {
      'application/json': {
        schema: ref('schemas', 'ErrorEnvelope'),
        example: {
          success: false,
          error: 'Invalid request format',
          code: 'invalid_input',
          details: { name: { message: 'name is required', path: ['name'] } },
          status: 400,
        },
      },
    },
  },
  Unauthorized: errorResponse(
    '`x-api-key` is missing or is not a valid key.',
    401,
    'unauthenticated',
    'Invalid API key provided',
  ),
  Forbidden: errorResponse(
    'The API key lacks the scope this operation needs.',
    403,
    'forbidden',
    'This API key lacks the agents:write scope',
  ),
  NotFound: errorResponse(
    'The agent (or session, version, pending approval or background run) does not exist or belongs to another account (the same answer); also any path under the mount point that this document does not list.',
    404,
    'not_found',
    'Agent not found',
  ),
  MethodNotAllowed: errorResponse(
    'A listed path with a method it does not list.',
    405,
    'method_not_allowed',
    'Method GET is not allowed here; allowed: POST',
    { Allow: ref('headers', 'Allow') },
  ),
  Conflict: errorResponse(
    'The request waited longer than the bound (30 s by default) for an earlier one on the same session (or agent) to finish, or a request with the same `Idempotency-Key` is still in progress; nothing was stored. Retry later. Also a new run on a session whose last turn waits for approval of tool calls (the message names them): answer them first.',
    409,
    'conflict',
    'Another run of this session is still in progress; retry when it has finished',
  ),
  PayloadTooLarge: errorResponse(
    "The body is over the server's limit (1 MiB by default).",
    413,
    'payload_too_large',
    'Request body is larger than the limit of 1mb',
  ),
  UnsupportedMediaType: errorResponse(
    'The body is not JSON (`application/json` or `application/*+json`), or not UTF-8.',
    415,
    'unsupported_media_type',
    'Unsupported content type: send the body as application/json',
  ),
  UnprocessableContent: errorResponse(
    'The `Idempotency-Key` was already used with a different request (another body, or another agent).',
    422,
    'idempotency_key_reused',
    'This Idempotency-Key was already used with a different request',
  ),
  TooManyRequests: errorResponse(
    'Too many requests with this API key, or too many failed authentications from this address (which may be refused before the key is checked), or (starting a background run) the account has as many background runs in flight as it may; wait `Retry-After` seconds.',
    429,
    'rate_limited',
    'Rate limit reached for this API key; retry later',
    {
      'Retry-After': ref('headers', 'RetryAfter'),
      RateLimit: ref('headers', 'RateLimit'),
      'RateLimit-Policy': ref('headers', 'RateLimitPolicy'),
    },
  ),
  InternalError: errorResponse(
    'Anything unexpected; the detail is only in the server log, under the request id.',
    500,
    'internal',
    'Internal server error',
  ),
  BadGateway: errorResponse(
    "The model provider failed (5xx, a reset connection), answered nonsense, or refused this server's provider key; after the retries. Nothing was stored.",
    502,
    'provider_error',
    'The model provider failed to answer',
  ),
  ServiceUnavailable: errorResponse(
    'The store or the lock service cannot be reached, or the model provider is rate limiting this server. Retry after `Retry-After` seconds.',
    503,
    'storage_unavailable',
    'Storage is unavailable; retry later',
    { 'Retry-After': ref('headers', 'RetryAfter') },
  ),
  GatewayTimeout: errorResponse(
    'The model provider did not answer in time (60 s by default, retries included). Nothing was stored.',
    504,
    'provider_timeout',
    'The model provider did not answer in time',
  ),
};

/** The name in `components.responses` of each error status. */
export const ERROR_RESPONSE_BY_STATUS: Readonly<Record<number, keyof typeof ERROR_RESPONSES>> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  409: 'Conflict',
  413: 'PayloadTooLarge',
  415: 'UnsupportedMediaType',
  422: 'UnprocessableContent',
  429: 'TooManyRequests',
  500: 'InternalError',
  502: 'BadGateway',
  503: 'ServiceUnavailable',
  504: 'GatewayTimeout',
};

/** The document's `components.headers`. */
export const HEADERS = {
  XRequestId: {
    description:
      "The request id: the client's own `x-request-id` when it sent a safe one, else a new UUID. Server logs carry the same id.",
    required: true,
    schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$' },
  },
  Allow: {
    description: 'The methods this path takes.',
    required: true,
    schema: { type: 'string' },
    example: 'GET, HEAD, POST',
  },
  RetryAfter: {
    description: 'Seconds to wait before retrying.',
    required: true,
    schema: { type: 'integer', minimum: 0 },
  },
  RateLimit: {
    description:
      'The limit, the requests left and the seconds until the window resets (IETF RateLimit header fields, draft 7); on every answer when rate limits are on.',
    schema: { type: 'string' },
    example: 'limit=100, remaining=0, reset=42',
  },
  RateLimitPolicy: {
    description: 'The limit and its window in seconds (IETF RateLimit header fields, draft 7).',
    schema: { type: 'string' },
    example: '100;w=60',
  },
  IdempotentReplayed: {
    description: '`true` when this is the kept answer of an earlier request with the same `Idempotency-Key`.',
    schema: { type: 'string', enum: ['true'] },
  },
  XNextCursor: { description: 'The cursor of the next page; absent on the last page.', schema: { type: 'string' } },
  Link: {
    description: 'The next page\'s URL, as `<...>; rel="next"`; absent on the last page.',
    schema: { type: 'string' },
  },
};

/** The document's `components.parameters`. */
export const PARAMETERS = {
  AgentId: {
    name: 'agentId',
    in: 'path',
    required: true,
    description: 'The agent id, as `POST /agents` returned it',
    schema: { type: 'string' },
  },
  SessionId: {
    name: 'sessionId',
    in: 'path',
    required: true,
    description: 'The session id, as a run returned it or the client chose it',
    schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$' },
  },
  Version: {
    name: 'version',
    in: 'path',
    required: true,
    description: "A version number of the agent, 1 to the agent's `version`; any other is 404",
    schema: { type: 'integer', minimum: 1 },
  },
  RunId: {
    name: 'runId',
    in: 'path',
    required: true,
    description: 'The `run_id` of a background run, as its start answered it',
    schema: { type: 'string' },
  },
  ApprovalId: {
    name: 'approvalId',
    in: 'path',
    required: true,
    description: 'The `approval_id` of a pending approval, as the run (or the session) listed it',
    schema: { type: 'string' },
  },
  Cursor: {
    name: 'cursor',
    in: 'query',
    required: false,
    description: 'The `next_cursor` of the previous page; a cursor this server did not give out is a 400',
    schema: { type: 'string' },
  },
  Pretty: {
    name: 'pretty',
    in: 'query',
    required: false,
    description: '`true` indents the JSON by two spaces',
    schema: { type: 'boolean', default: false },
  },
  RequestId: {
    name: 'x-request-id',
    in: 'header',
    required: false,
    description: 'An id for this request, echoed back and logged; a new UUID is used when it is absent or unsafe',
    schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$' },
  },
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      'A key the client makes unique per request (a UUID fits). The first request with it runs and its answer is kept for 24 h; a retry with the same key and body gets that answer again, with `Idempotent-Replayed: true`, and runs nothing. The same key with another request is 422; a retry while the first still runs is 409. Answers worth retrying (5xx, 409, 429) are not kept. Not for streamed runs.',
    schema: { type: 'string', pattern: '^[\\x21-\\x7e]{1,255}$' },
  },
};
