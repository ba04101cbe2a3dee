import {
  createAgentInputSchema,
  MAX_INPUT_LENGTH,
  MAX_INSTRUCTION_LENGTH,
  MAX_NAME_LENGTH,
  runAgentInputSchema,
  updateAgentInputSchema,
} from '@agenthost/core';
import { z } from 'zod';
import packageJson from '../package.json' with { type: 'json' };
import { responseComponents, streamEventSchemas } from './response-schemas.js';

type Json = Record<string, unknown>;

/** The server URL the document names when none is given: the canonical mount point. */
export const DEFAULT_SERVER_URL = '/api/v1';

const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const ref = (kind: 'responses' | 'parameters' | 'headers', name: string) => ({ $ref: `#/components/${kind}/${name}` });

/** Named JSON Schemas from a zod registry, `$ref`s between them pointing into `components.schemas`. */
function jsonSchemas(registry: z.core.$ZodRegistry<{ id: string }>, io: 'input' | 'output'): Record<string, Json> {
  const { schemas } = z.toJSONSchema(registry, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
    uri: (id) => `#/components/schemas/${id}`,
  });
  // An OpenAPI 3.1 document's schemas are 2020-12 already; a fragment `$id` would not be a valid one.
  return Object.fromEntries(
    Object.entries(schemas).map(([id, { $schema: _dialect, $id: _id, ...schema }]) => [id, schema as Json]),
  );
}

/** Adds descriptions to the properties of a generated object schema. */
function describe(schema: Json, descriptions: Record<string, string>): Json {
  const properties = schema.properties as Record<string, Json>;
  for (const [name, description] of Object.entries(descriptions))
    if (properties[name]) properties[name] = { description, ...properties[name] };
  return schema;
}

const FIELD_DESCRIPTIONS = {
  name: `Not blank, at most ${MAX_NAME_LENGTH} characters; stored trimmed`,
  instruction: `The system instruction sent with every run. Not blank, at most ${MAX_INSTRUCTION_LENGTH} characters; stored as sent`,
  model: "One of the server's model names (a 400 lists them in `details.model.message`)",
  tool: 'One of the server\'s tool integrations; `null`, `"none"`, `"None"` and `""` mean no tool (a 400 lists the tools)',
  component: "A free label for the client's UI; `Chat` when not given",
};

/** The request bodies, converted from the zod schemas that validate them. */
function requestSchemas(): Record<string, Json> {
  const registry = z.registry<{ id: string }>();
  registry.add(createAgentInputSchema, { id: 'CreateAgentInput' });
  // PUT clients send the fields inside `config`, as a record shows them; both forms are read.
  registry.add(updateAgentInputSchema.extend({ config: updateAgentInputSchema.optional() }), {
    id: 'UpdateAgentInput',
  });
  registry.add(runAgentInputSchema, { id: 'RunAgentInput' });
  const schemas = jsonSchemas(registry, 'input');
  const create = describe(schemas.CreateAgentInput!, FIELD_DESCRIPTIONS);
  create.description =
    'A new agent. Unknown fields, `agent_id`, `created_at` and `updated_at` included, are ignored. Strings may not contain NUL or unpaired UTF-16 surrogates.';
  const update = describe(schemas.UpdateAgentInput!, FIELD_DESCRIPTIONS);
  update.description =
    'Changes to an agent: any of the create fields, each validated as on create; fields not given keep their value. At least one is needed. The fields may also be sent inside `config`.';
  describe((update.properties as Record<string, Json>).config!, FIELD_DESCRIPTIONS);
  (update.properties as Record<string, Json>).config!.description =
    "The same fields, as a record's `config` shows them; top-level fields win";
  const run = describe(schemas.RunAgentInput!, {
    input: `The user's message. Not blank; at most ${MAX_INPUT_LENGTH} characters, and at most the server's \`maxInputChars\` (32 000 by default)`,
    input_data: 'Accepted instead of `input`, for older clients',
    session_id: 'Continue this conversation (or start one under this id); absent or `null` starts a new one',
    json_mode: '`true` makes `output` a JSON text that parses',
    json_format:
      'A JSON Schema, as an object or as its JSON text (at most 32 768 characters); `output` is then JSON that validates against it',
    stream: '`true` answers with server-sent events instead of JSON',
  });
  // The zod schema needs one of the two through a refinement, which JSON Schema cannot take from it.
  run.anyOf = [{ required: ['input'] }, { required: ['input_data'] }];
  run.description = 'A run: the input, and optionally the conversation to continue and the shape of the answer.';
  return schemas;
}

const INFO_DESCRIPTION = `Create, list, change and run AI agents, and read their conversations.

**Authentication.** Every operation except this document needs an API key in the \`x-api-key\` header.
A key authenticates one account, which sees only its own agents. A key may be limited to scopes:
\`agents:read\` (GET), \`agents:write\` (creating, changing and deleting agents, deleting sessions) and
\`agents:run\` (runs); a key without the scope an operation needs gets 403. Authentication runs first, so a
request without a valid key gets 401 whatever else is wrong with it.

**Envelope.** Every answer is JSON (\`application/json; charset=utf-8\`), streamed runs excepted: on success
\`{"success": true, "data": ..., "status": 200}\`, on failure \`{"success": false, "error": "...", "details"?: {...},
"status": <the HTTP status>}\`. Validation errors carry \`details\`, one \`{message, path}\` per offending
top-level field. \`?pretty=true\` indents the JSON. Every response carries \`x-request-id\`.

**Retries.** \`POST /agents\` and JSON runs take an \`Idempotency-Key\` header: a retry with the same key and
body gets the first answer again (with \`Idempotent-Replayed: true\`) without doing anything twice.

**Rate limits.** When the server sets them, requests are counted per API key, and failed authentications per
client address; past a limit the answer is 429 with \`Retry-After\`. Every answer then carries the
\`RateLimit\` and \`RateLimit-Policy\` headers.

**Unknown routes and methods.** Under the mount point, a path that is not listed here answers 404 and a
listed path with a method it does not list answers 405 with an \`Allow\` header, both with the error envelope
(\`/openapi.json\`, served apart from the API, answers other methods with 404).

**Mount points.** The API is served under \`/api/v1\` and, identically, under \`/api\` for older clients.`;

/** The document but its servers, built on first use. */
let cached: Json | undefined;

function buildDocument(): Json {
  const errorMedia = (error: string, status: number) => ({
    'application/json': { schema: schemaRef('ErrorEnvelope'), example: { success: false, error, status } },
  });
  const errorResponse = (description: string, status: number, example: string, headers: Json = {}) => ({
    description,
    headers: { 'x-request-id': ref('headers', 'XRequestId'), ...headers },
    content: errorMedia(example, status),
  });
  const ok = (description: string, schema: string, headers: Json = {}) => ({
    description,
    headers: { 'x-request-id': ref('headers', 'XRequestId'), ...headers },
    content: { 'application/json': { schema: schemaRef(schema) } },
  });

  const responses = {
    BadRequest: {
      ...errorResponse(
        'Bad request: malformed JSON, a body that is not an object or is nested more than 64 levels deep, a field of the wrong type, a required string missing or blank, an unsupported `model`, an unknown `tool`, an invalid `session_id`, a bad `limit`, `cursor`, `after` or `order`, an invalid `Idempotency-Key` (or one on a streamed run), or a malformed URL. Validation errors carry `details`.',
        400,
        'Invalid request format',
      ),
      content: {
        'application/json': {
          schema: schemaRef('ErrorEnvelope'),
          example: {
            success: false,
            error: 'Invalid request format',
            details: { name: { message: 'name is required', path: ['name'] } },
            status: 400,
          },
        },
      },
    },
    Unauthorized: errorResponse('`x-api-key` is missing or is not a valid key.', 401, 'Invalid API key provided'),
    Forbidden: errorResponse(
      'The API key lacks the scope this operation needs.',
      403,
      'This API key lacks the agents:write scope',
    ),
    NotFound: errorResponse(
      'The agent (or session) does not exist or belongs to another account (the same answer); also any path under the mount point that this document does not list.',
      404,
      'Agent not found',
    ),
    MethodNotAllowed: errorResponse(
      'A listed path with a method it does not list.',
      405,
      'Method GET is not allowed here; allowed: POST',
      { Allow: ref('headers', 'Allow') },
    ),
    Conflict: errorResponse(
      'The request waited longer than the bound (30 s by default) for an earlier one on the same session (or agent) to finish, or a request with the same `Idempotency-Key` is still in progress; nothing was stored. Retry later.',
      409,
      'Another run of this session is still in progress; retry when it has finished',
    ),
    PayloadTooLarge: errorResponse(
      "The body is over the server's limit (1 MiB by default).",
      413,
      'Request body is larger than the limit of 1mb',
    ),
    UnsupportedMediaType: errorResponse(
      'The body is not JSON (`application/json` or `application/*+json`), or not UTF-8.',
      415,
      'Unsupported content type: send the body as application/json',
    ),
    UnprocessableContent: errorResponse(
      'The `Idempotency-Key` was already used with a different request (another body, or another agent).',
      422,
      'This Idempotency-Key was already used with a different request',
    ),
    TooManyRequests: errorResponse(
      'Too many requests with this API key, or too many failed authentications from this address (which may be refused before the key is checked); wait `Retry-After` seconds.',
      429,
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
      'Internal server error',
    ),
    BadGateway: errorResponse(
      "The model provider failed (5xx, a reset connection), answered nonsense, or refused this server's provider key; after the retries. Nothing was stored.",
      502,
      'The model provider failed to answer',
    ),
    ServiceUnavailable: errorResponse(
      'The store or the lock service cannot be reached, or the model provider is rate limiting this server. Retry after `Retry-After` seconds.',
      503,
      'Storage is unavailable; retry later',
      { 'Retry-After': ref('headers', 'RetryAfter') },
    ),
    GatewayTimeout: errorResponse(
      'The model provider did not answer in time (60 s by default, retries included). Nothing was stored.',
      504,
      'The model provider did not answer in time',
    ),
  };

  const headers = {
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

  const parameters = {
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
    Limit: (defaultValue: number) => ({
      name: 'limit',
      in: 'query',
      required: false,
      description: `Page size, 1 to 100 (default ${defaultValue})`,
      schema: { type: 'integer', minimum: 1, maximum: 100, default: defaultValue },
    }),
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

  const common = [ref('parameters', 'Pretty'), ref('parameters', 'RequestId')];
  const scope = (name: 'agents:read' | 'agents:write' | 'agents:run') => [{ ApiKey: [name] }];
  const errors = (...statuses: number[]) => {
    const byStatus: Record<number, string> = {
      400: 'BadRequest',
      401: 'Unauthorized',
      403: 'Forbidden',
      404: 'NotFound',
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
    // Every operation behind the key check can answer these; a body (on any method) is checked too.
    const all = [...new Set([...statuses, 400, 401, 403, 413, 415, 429, 500, 503])].sort((a, b) => a - b);
    return Object.fromEntries(all.map((status) => [String(status), ref('responses', byStatus[status]!)]));
  };
  const jsonBody = (schema: string) => ({
    required: true,
    content: { 'application/json': { schema: schemaRef(schema) } },
  });

  const streamDescription = `With \`"stream": true\` in the body, or \`Accept: text/event-stream\`, the run answers 200 with server-sent events. Each event's \`data\` is one JSON object:

| event | data |
|---|---|
| \`text-delta\` | \`{delta}\`: the next piece of the answer (not sent for \`json_mode\`/\`json_format\` runs) |
| \`tool-call\` | \`{tool_call_id, tool_name, input}\` |
| \`tool-result\` | \`{tool_call_id, tool_name, output}\` |
| \`tool-error\` | \`{tool_call_id, tool_name, error}\`: the tool failed; the model is told and goes on |
| \`done\` | exactly the \`data\` of a JSON answer: \`{output, session_id, metadata}\` |
| \`error\` | the error envelope, e.g. \`{"success": false, "error": "...", "status": 502}\` |

Exactly one \`done\` or \`error\` ends every stream. A comment line (\`: keep-alive\`) is sent every 15 s on a quiet stream. Failures found before the stream starts (400, 401, 403, 404, 409, 413, 415) are plain JSON answers with their status. If the client disconnects, the model call is aborted and nothing is stored.`;

  const paths = {
    '/agents': {
      parameters: common,
      post: {
        operationId: 'createAgent',
        tags: ['Agents'],
        summary: 'Create an agent',
        security: scope('agents:write'),
        parameters: [ref('parameters', 'IdempotencyKey')],
        requestBody: jsonBody('CreateAgentInput'),
        responses: {
          '200': ok("The new agent's id and creation time.", 'AgentCreatedResponse', {
            'Idempotent-Replayed': ref('headers', 'IdempotentReplayed'),
          }),
          ...errors(409, 413, 415, 422),
        },
      },
      get: {
        operationId: 'listAgents',
        tags: ['Agents'],
        summary: 'List agents',
        description:
          'Without paging parameters, every agent of the account, oldest first. With any of `limit`, `after` or `order`, one page: the `X-Next-Cursor` and `Link` headers point to the next page and are absent on the last.',
        security: scope('agents:read'),
        parameters: [
          { ...parameters.Limit(20), description: 'Page size, 1 to 100 (default 20 when paging)' },
          {
            name: 'after',
            in: 'query',
            required: false,
            description: 'The `X-Next-Cursor` of the previous page',
            schema: { type: 'string' },
          },
          {
            name: 'order',
            in: 'query',
            required: false,
            description: '`asc`: oldest first (default); `desc`: newest first',
            schema: { type: 'string', enum: ['asc', 'desc'], default: 'asc' },
          },
        ],
        responses: {
          '200': ok('The agents.', 'AgentListResponse', {
            'X-Next-Cursor': ref('headers', 'XNextCursor'),
            Link: ref('headers', 'Link'),
          }),
          ...errors(),
        },
      },
    },
    '/agents/{agentId}': {
      parameters: [ref('parameters', 'AgentId'), ...common],
      get: {
        operationId: 'getAgent',
        tags: ['Agents'],
        summary: 'Get an agent',
        security: scope('agents:read'),
        responses: { '200': ok('The agent.', 'AgentResponse'), ...errors(404) },
      },
      patch: {
        operationId: 'updateAgent',
        tags: ['Agents'],
        summary: 'Change an agent',
        description:
          'Changes the fields given; the others keep their value. Concurrent changes of one agent take turns, so none is lost. `updated_at` moves, `created_at` stays.',
        security: scope('agents:write'),
        requestBody: jsonBody('UpdateAgentInput'),
        responses: { '200': ok('The changed agent.', 'AgentResponse'), ...errors(404, 409, 413, 415) },
      },
      put: {
        operationId: 'putAgent',
        tags: ['Agents'],
        summary: 'Change an agent (PUT)',
        description:
          'The same as PATCH: fields not given keep their value. Clients that send a whole record may send the fields inside `config`.',
        security: scope('agents:write'),
        requestBody: jsonBody('UpdateAgentInput'),
        responses: { '200': ok('The changed agent.', 'AgentResponse'), ...errors(404, 409, 413, 415) },
      },
      delete: {
        operationId: 'deleteAgent',
        tags: ['Agents'],
        summary: 'Delete an agent',
        description: 'Deletes the agent and all of its sessions; a second delete is 404.',
        security: scope('agents:write'),
        responses: { '200': ok('The agent was deleted.', 'AgentDeletedResponse'), ...errors(404) },
      },
    },
    '/agents/{agentId}/run': {
      parameters: [ref('parameters', 'AgentId'), ...common],
      post: {
        operationId: 'runAgent',
        tags: ['Runs'],
        summary: 'Run an agent',
        description: `The model sees the agent's instruction, the session's earlier turns (as many of the newest as fit its context budget), then the input. The turn is stored only when the model call succeeded. Runs of one session take turns; past the wait bound a run gets 409.\n\n${streamDescription}`,
        security: scope('agents:run'),
        parameters: [
          ref('parameters', 'IdempotencyKey'),
          {
            name: 'Accept',
            in: 'header',
            required: false,
            description: '`text/event-stream` streams the run, like `"stream": true`',
            schema: { type: 'string' },
          },
        ],
        requestBody: jsonBody('RunAgentInput'),
        responses: {
          '200': {
            description:
              "The run's output, session and metadata; or, when streamed, server-sent events ending in `done` or `error`.",
            headers: {
              'x-request-id': ref('headers', 'XRequestId'),
              'Idempotent-Replayed': ref('headers', 'IdempotentReplayed'),
            },
            content: {
              'application/json': { schema: schemaRef('RunResponse') },
              'text/event-stream': {
                schema: {
                  type: 'string',
                  description:
                    'Server-sent events: `event: <name>` and `data: <one JSON object>` lines, a blank line after each',
                },
                example:
                  'event: text-delta\ndata: {"delta":"Hel"}\n\nevent: done\ndata: {"output":"Hello","session_id":"ses_1","metadata":{"model":"echo","tool_used":null,"tokens":{"prompt":3,"completion":1,"total":4},"omitted_messages":0}}\n\n',
                // The data schema of each event, by event name.
                'x-agenthost-events': Object.fromEntries(
                  Object.entries(streamEventSchemas).map(([event, schema]) => [
                    event,
                    schemaRef(responseComponents.get(schema)!.id),
                  ]),
                ),
              },
            },
          },
          ...errors(404, 409, 413, 415, 422, 502, 504),
        },
      },
    },
    '/models': {
      parameters: common,
      get: {
        operationId: 'listModels',
        tags: ['Discovery'],
        summary: 'List the models agents may use',
        description:
          "Every model this server offers, by the name an agent's `model` takes (`provider/model`; a bare model id also works when one provider offers it), with its provider, and its context window and list price where the model catalog knows them.",
        security: scope('agents:read'),
        responses: { '200': ok('The offered models.', 'ModelListResponse'), ...errors() },
      },
    },
    '/tools': {
      parameters: common,
      get: {
        operationId: 'listTools',
        tags: ['Discovery'],
        summary: 'List the tool integrations agents may use',
        description:
          "Every tool integration this server offers, by the name an agent's `tool` takes, with what it does.",
        security: scope('agents:read'),
        responses: { '200': ok('The offered tool integrations.', 'ToolListResponse'), ...errors() },
      },
    },
    '/agents/{agentId}/sessions': {
      parameters: [ref('parameters', 'AgentId'), ...common],
      get: {
        operationId: 'listSessions',
        tags: ['Sessions'],
        summary: "List an agent's sessions",
        description: "The caller's sessions of the agent, newest (first stored) first, one page at a time.",
        security: scope('agents:read'),
        parameters: [parameters.Limit(20), ref('parameters', 'Cursor')],
        responses: { '200': ok('One page of sessions.', 'SessionListResponse'), ...errors(404) },
      },
    },
    '/agents/{agentId}/sessions/{sessionId}': {
      parameters: [ref('parameters', 'AgentId'), ref('parameters', 'SessionId'), ...common],
      get: {
        operationId: 'getSession',
        tags: ['Sessions'],
        summary: 'Get a session and its messages',
        description: 'The session with one page of its messages, oldest first. An unknown session is 404.',
        security: scope('agents:read'),
        parameters: [parameters.Limit(100), ref('parameters', 'Cursor')],
        responses: { '200': ok('The session with one page of messages.', 'SessionResponse'), ...errors(404) },
      },
      delete: {
        operationId: 'deleteSession',
        tags: ['Sessions'],
        summary: 'Delete a session',
        description:
          'Deletes the session and its messages, waiting (like a run) for a run of it in progress; a second delete is 404. Running with that `session_id` again starts a new conversation.',
        security: scope('agents:write'),
        responses: { '200': ok('The session was deleted.', 'SessionDeletedResponse'), ...errors(404, 409) },
      },
    },
    '/openapi.json': {
      get: {
        operationId: 'getOpenApiDocument',
        tags: ['Meta'],
        summary: 'This document',
        description: 'The OpenAPI 3.1 document of this API. Needs no API key. Other methods answer 404.',
        security: [],
        parameters: [ref('parameters', 'Pretty')],
        responses: {
          '200': {
            description: 'The OpenAPI document.',
            headers: { 'x-request-id': ref('headers', 'XRequestId') },
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: {
                    openapi: { type: 'string', pattern: '^3\\.1\\.\\d+$' },
                    info: { type: 'object' },
                    paths: { type: 'object' },
                  },
                  required: ['openapi', 'info', 'paths'],
                },
              },
            },
          },
        },
      },
    },
  };

  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'agenthost',
      version: packageJson.version,
      description: INFO_DESCRIPTION,
      license: { name: 'MIT', identifier: 'MIT' },
    },
    tags: [
      { name: 'Agents', description: 'Create, list, get, change and delete agents' },
      { name: 'Runs', description: 'Run an agent, as one JSON answer or as server-sent events' },
      { name: 'Sessions', description: "An agent's conversations and their messages" },
      { name: 'Discovery', description: 'The models and tool integrations agents may use' },
      { name: 'Meta', description: 'About the API itself' },
    ],
    security: [{ ApiKey: [] }],
    paths,
    components: {
      schemas: { ...requestSchemas(), ...jsonSchemas(responseComponents, 'output') },
      responses,
      parameters: {
        AgentId: parameters.AgentId,
        SessionId: parameters.SessionId,
        Cursor: parameters.Cursor,
        Pretty: parameters.Pretty,
        RequestId: parameters.RequestId,
        IdempotencyKey: parameters.IdempotencyKey,
      },
      headers,
      securitySchemes: {
        ApiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'x-api-key',
          description:
            'An API key of the account. Keys may be limited to the scopes `agents:read`, `agents:write` and `agents:run`; each operation names the scope it needs.',
        },
      },
    },
  };
}

/**
 * The OpenAPI 3.1 document of the HTTP API. Request bodies are converted from the same zod schemas
 * that validate requests (`createAgentInputSchema`, `updateAgentInputSchema`, `runAgentInputSchema`),
 * response bodies from the zod schemas of `response-schemas.ts`; every route and status of
 * `docs/http-api.md` is listed. The router serves it, without authentication, at `/openapi.json`.
 *
 * @param options.serverUrl Where the API is mounted, as the document's one server (default `/api/v1`).
 * @returns A fresh JSON-serialisable object; changing it changes no later result.
 */
export function openApiDocument(options: { serverUrl?: string } = {}): Record<string, unknown> {
  cached ??= buildDocument();
  const { openapi, jsonSchemaDialect, info, ...rest } = structuredClone(cached);
  const url = options.serverUrl ?? DEFAULT_SERVER_URL;
  const servers = [
    {
      url,
      description: url === DEFAULT_SERVER_URL ? 'The canonical mount point (also served under `/api`)' : 'This server',
    },
  ];
  return { openapi, jsonSchemaDialect, info, servers, ...rest };
}
