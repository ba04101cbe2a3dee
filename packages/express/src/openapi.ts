import {
  MAX_INPUT_FILE_BYTES,
  MAX_INPUT_FILES_BYTES,
  MAX_INPUT_LENGTH,
  MAX_INSTRUCTION_LENGTH,
  MAX_NAME_LENGTH,
} from '@agenthost/core';
import { z } from 'zod';
import packageJson from '../package.json' with { type: 'json' };
import { requestComponents } from './http-bodies.js';
import { ERROR_RESPONSES, HEADERS, PARAMETERS } from './openapi-components.js';
import { pathsOf } from './openapi-paths.js';
import { responseComponents } from './response-schemas.js';
import { ROUTES } from './routes.js';

type Json = Record<string, unknown>;

/** The server URL the document names when none is given: the canonical mount point. */
export const DEFAULT_SERVER_URL = '/api/v1';

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
  const schemas = jsonSchemas(requestComponents, 'input');
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
    input: `The user's message: text (not blank; at most ${MAX_INPUT_LENGTH} characters, and at most the server's \`maxInputChars\`, 32 000 by default), or a list of parts: \`text\`, \`image\` and \`file\`, each image or file by \`url\` (https, passed to the provider, never fetched by the server) or base64 \`data\` (one of the two; at most ${MAX_INPUT_FILE_BYTES / 2 ** 20} MiB each and ${MAX_INPUT_FILES_BYTES / 2 ** 20} MiB in all, decoded; the bytes must be of \`media_type\`). A model that does not read images or files (\`GET /models\`, \`input\`) answers 400 naming the part`,
    input_data: 'Accepted instead of `input`, for older clients',
    session_id: 'Continue this conversation (or start one under this id); absent or `null` starts a new one',
    json_mode: '`true` makes `output` a JSON text that parses',
    json_format:
      'A JSON Schema, as an object or as its JSON text (at most 32 768 characters); `output` is then JSON that validates against it',
    stream: '`true` answers with server-sent events instead of JSON',
    background:
      '`true` starts a background run: the answer is 202 at once with the run object, and the run goes on without the caller (with `stream`, its events follow the run object)',
  });
  // The zod schema needs one of the two through a refinement, which JSON Schema cannot take from it.
  run.anyOf = [{ required: ['input'] }, { required: ['input_data'] }];
  run.description = 'A run: the input, and optionally the conversation to continue and the shape of the answer.';
  const approval = describe(schemas.ApprovalResponseInput!, {
    approve: '`true` runs the tool call; `false` denies it',
    reason: 'Why: passed on to the model with a denial, and kept in the session (at most 2000 characters)',
    stream: "`true` answers with the resumed run's server-sent events instead of JSON",
  });
  approval.description = 'The answer to a tool call that waits for approval.';
  return schemas;
}

const INFO_DESCRIPTION = `Create, list, change and run AI agents, and read their conversations.

**Authentication.** Every operation except this document needs an API key in the \`x-api-key\` header.
A key authenticates one account, which sees only its own agents. A key may be limited to scopes:
\`agents:read\` (GET), \`agents:write\` (creating, changing and deleting agents, deleting sessions) and
\`agents:run\` (runs); a key without the scope an operation needs gets 403. Authentication runs first, so a
request without a valid key gets 401 whatever else is wrong with it.

**Envelope.** Every answer is JSON (\`application/json; charset=utf-8\`), streamed runs excepted: on success
\`{"success": true, "data": ..., "status": 200}\` (202 for a background run's start), on failure \`{"success": false, "error": "...", "code": "...",
"details"?: {...}, "status": <the HTTP status>}\`. \`code\` is a stable machine code (\`rate_limited\`,
\`storage_unavailable\`, \`provider_rate_limited\`...; the \`ErrorEnvelope\` schema lists them all), so two answers
of one status can be told apart. Validation errors carry \`details\`, one \`{message, path}\` per offending
top-level field. \`?pretty=true\` indents the JSON. Every response carries \`x-request-id\`.

**Retries.** \`POST /agents\` and JSON runs take an \`Idempotency-Key\` header: a retry with the same key and
body gets the first answer again (with \`Idempotent-Replayed: true\`) without doing anything twice.

**Rate limits.** When the server sets them, requests are counted per API key, and failed authentications per
client address; past a limit the answer is 429 with \`Retry-After\`. Every answer then carries the
\`RateLimit\` and \`RateLimit-Policy\` headers.

**Unknown routes and methods.** Under the mount point, a path that is not listed here answers 404 and a
listed path with a method it does not list answers 405 with an \`Allow\` header, both with the error envelope
(\`/openapi.json\`, served apart from the API, answers other methods with 405).

**Mount points.** The API is served under \`/api/v1\` and, identically, under \`/api\` for older clients.`;

/** The document but its servers, built on first use. */
let cached: Json | undefined;

function buildDocument(): Json {
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
      {
        name: 'Runs',
        description:
          'Run an agent, as one JSON answer or as server-sent events, or in the background (read, resume and cancel it from any server); answer its tool calls that wait for approval',
      },
      { name: 'Sessions', description: "An agent's conversations and their messages" },
      { name: 'Discovery', description: 'The models and tool integrations agents may use' },
      { name: 'Meta', description: 'About the API itself' },
    ],
    security: [{ ApiKey: [] }],
    paths: pathsOf(ROUTES),
    components: {
      schemas: { ...requestSchemas(), ...jsonSchemas(responseComponents, 'output') },
      responses: ERROR_RESPONSES,
      parameters: PARAMETERS,
      headers: HEADERS,
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
 * The OpenAPI 3.1 document of the HTTP API. Its paths are the route table's (`routes.ts`), the
 * table the router registers; request bodies are converted from the zod schemas that validate
 * requests (`http-bodies.ts`, over core's input schemas), response bodies from the zod schemas of
 * `response-schemas.ts`. The router serves it, without authentication, at `/openapi.json`.
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
