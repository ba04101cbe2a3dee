import { BACKGROUND_RUN_ROUTES } from './background-run-routes.js';
import { chatBodySchema } from './chat-bodies.js';
import { approvalBodySchema, createAgentBodySchema, runAgentBodySchema, updateAgentBodySchema } from './http-bodies.js';
import {
  agentCreatedResponseSchema,
  agentDeletedResponseSchema,
  agentListResponseSchema,
  agentResponseSchema,
  agentVersionListResponseSchema,
  agentVersionResponseSchema,
  backgroundRunAcceptedSchema,
  chatResponseSchema,
  modelListResponseSchema,
  runResponseSchema,
  sessionDeletedResponseSchema,
  sessionListResponseSchema,
  sessionResponseSchema,
  toolListResponseSchema,
} from './response-schemas.js';
import { guarded, limit, type RouteDefinition } from './route-definition.js';

export type { RouteDefinition, RouteHandlerName, RouteMethod, RouteParameter } from './route-definition.js';

/** PATCH and PUT of an agent: the same operation under two methods. */
const CHANGE_AGENT = {
  path: '/agents/{agentId}',
  scope: 'agents:write',
  handler: 'updateAgent',
  request: updateAgentBodySchema,
  example: { instruction: 'You greet people briefly.' },
  response: agentResponseSchema,
  statuses: guarded(404, 409),
  tag: 'Agents',
  answers: 'The changed agent.',
} as const;

/** Every operation of the HTTP API (docs/http-api.md), in the order the document lists them. */
export const ROUTES: readonly RouteDefinition[] = Object.freeze<RouteDefinition[]>([
  {
    method: 'post',
    path: '/agents',
    operationId: 'createAgent',
    scope: 'agents:write',
    handler: 'createAgent',
    idempotency: 'create',
    request: createAgentBodySchema,
    example: { name: 'Greeter', instruction: 'You greet people warmly.', model: 'echo', tool: null },
    response: agentCreatedResponseSchema,
    statuses: guarded(409, 422),
    tag: 'Agents',
    summary: 'Create an agent',
    answers: "The new agent's id and creation time.",
    parameters: ['IdempotencyKey'],
    headers: { 'Idempotent-Replayed': 'IdempotentReplayed' },
  },
  {
    method: 'get',
    path: '/agents',
    operationId: 'listAgents',
    scope: 'agents:read',
    handler: 'listAgents',
    response: agentListResponseSchema,
    statuses: guarded(),
    tag: 'Agents',
    summary: 'List agents',
    description:
      'Without paging parameters, every agent of the account, oldest first. With any of `limit`, `after` or `order`, one page: the `X-Next-Cursor` and `Link` headers point to the next page and are absent on the last. `metadata[<key>]=<value>` (repeatable, up to 16 keys) keeps only agents whose metadata has every pair given.',
    answers: 'The agents.',
    parameters: [
      limit(20, 'Page size, 1 to 100 (default 20 when paging)'),
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
      {
        name: 'metadata',
        in: 'query',
        required: false,
        style: 'deepObject',
        explode: true,
        description:
          'Only agents whose metadata has every pair: `metadata[team]=support&metadata[tier]=gold`. A malformed key, a key given twice or a bad value is a 400',
        schema: { type: 'object', additionalProperties: { type: 'string', maxLength: 512 }, maxProperties: 16 },
      },
    ],
    headers: { 'X-Next-Cursor': 'XNextCursor', Link: 'Link' },
  },
  {
    method: 'get',
    path: '/agents/{agentId}',
    operationId: 'getAgent',
    scope: 'agents:read',
    handler: 'getAgent',
    response: agentResponseSchema,
    statuses: guarded(404),
    tag: 'Agents',
    summary: 'Get an agent',
    answers: 'The agent.',
  },
  {
    ...CHANGE_AGENT,
    method: 'patch',
    operationId: 'updateAgent',
    summary: 'Change an agent',
    description:
      'Changes the fields given; the others keep their value (`null` clears a setting: a number to its default, a list to none, `metadata` to no pairs; `metadata` is replaced whole; `tool` and `tools` are one field). A change makes a new version (`version` + 1, `updated_at` moves, `created_at` stays); a body that changes nothing answers the agent as it is. Concurrent changes of one agent take turns, so none is lost.',
  },
  {
    ...CHANGE_AGENT,
    method: 'put',
    operationId: 'putAgent',
    summary: 'Change an agent (PUT)',
    description:
      'The same as PATCH: fields not given keep their value. Clients that send a whole record may send the fields inside `config`.',
  },
  {
    method: 'delete',
    path: '/agents/{agentId}',
    operationId: 'deleteAgent',
    scope: 'agents:write',
    handler: 'deleteAgent',
    response: agentDeletedResponseSchema,
    statuses: guarded(404),
    tag: 'Agents',
    summary: 'Delete an agent',
    description: 'Deletes the agent and all of its sessions; a second delete is 404.',
    answers: 'The agent was deleted.',
  },
  {
    method: 'get',
    path: '/agents/{agentId}/versions',
    operationId: 'listAgentVersions',
    scope: 'agents:read',
    handler: 'listAgentVersions',
    response: agentVersionListResponseSchema,
    statuses: guarded(404),
    tag: 'Agents',
    summary: "List an agent's versions",
    description:
      'Every change of an agent makes a version: its number and configuration, and when it began. Newest first, one page at a time.',
    answers: 'One page of versions.',
    parameters: [limit(20), 'Cursor'],
  },
  {
    method: 'get',
    path: '/agents/{agentId}/versions/{version}',
    operationId: 'getAgentVersion',
    scope: 'agents:read',
    handler: 'getAgentVersion',
    response: agentVersionResponseSchema,
    statuses: guarded(404),
    tag: 'Agents',
    summary: 'Get a version of an agent',
    description: 'A version number the agent never had is 404 (`Version not found`).',
    answers: 'The version.',
  },
  {
    method: 'post',
    path: '/agents/{agentId}/versions/{version}/restore',
    operationId: 'restoreAgentVersion',
    scope: 'agents:write',
    handler: 'restoreAgentVersion',
    response: agentResponseSchema,
    statuses: guarded(404, 409),
    tag: 'Agents',
    summary: 'Restore a version of an agent',
    description:
      "Makes the version's configuration the agent's current one, as a new version (the agent keeps its id; restoring the configuration it already has changes nothing). Checked like a change: a version naming a model or tool the server no longer offers is a 400. Takes no body.",
    answers: 'The agent, with its new version.',
  },
  {
    method: 'post',
    path: '/agents/{agentId}/run',
    operationId: 'runAgent',
    scope: 'agents:run',
    handler: 'runAgent',
    idempotency: 'run',
    streams: 'events',
    request: runAgentBodySchema,
    example: { input: 'Hello' },
    response: runResponseSchema,
    accepted: backgroundRunAcceptedSchema,
    statuses: guarded(202, 404, 409, 422, 502, 504),
    tag: 'Runs',
    summary: 'Run an agent',
    description:
      "The model sees the agent's instruction, the session's earlier turns (as many of the newest as fit its context budget), then the input. The turn is stored when the model call succeeded (a failed run leaves the session as it was); a turn whose tool calls wait for approval is kept as the session's pending turn, with the answers and approved tools' results as they come. Runs of one session take turns; past the wait bound a run gets 409.\n\nWith `\"background\": true` the run goes on without the caller, on this server: the answer is 202 at once with the run object (`queued`); read it with `GET /runs/{runId}`, its events with `GET /runs/{runId}/events`, and stop it with `POST /runs/{runId}/cancel`, on any server sharing the store. Past the account's runs in flight (16 by default) the answer is 429 `rate_limited`. With `stream` as well, see below.",
    answers:
      "The run's output, session and metadata; or, when streamed, server-sent events ending in `done` or `error`.",
    parameters: [
      'IdempotencyKey',
      {
        name: 'Accept',
        in: 'header',
        required: false,
        description: '`text/event-stream` streams the run, like `"stream": true`',
        schema: { type: 'string' },
      },
    ],
    headers: { 'Idempotent-Replayed': 'IdempotentReplayed' },
  },
  {
    method: 'post',
    path: '/agents/{agentId}/chat',
    operationId: 'chatAgent',
    scope: 'agents:run',
    handler: 'chatAgent',
    idempotency: 'chat',
    streams: 'ui-messages',
    request: chatBodySchema,
    example: { messages: [{ role: 'user', content: 'Hello' }] },
    response: chatResponseSchema,
    accepted: backgroundRunAcceptedSchema,
    statuses: guarded(202, 404, 409, 422, 502, 504),
    tag: 'Runs',
    summary: 'Chat with an agent',
    description:
      "One run on the last user message, for chat clients. Messages with `parts` (the AI SDK's `useChat` / `DefaultChatTransport`) are answered with the AI SDK's UI message stream; the input is the last user message's text and its file parts (`data:` URLs as base64 `data`, `https:` URLs as `url`), read as a run's input parts; `version` runs that version of the agent; the history is the stored session named by `session_id` (body) or `x-session-id` (header), else a new session. Messages with `content` (the `truffle-ai` SDK's `chat()`) are answered with JSON; without `session_id`, the earlier messages are the run's history (cut to the context budget like stored history, and not stored). Same session rules, locks and limits as a run. With `\"background\": true` (either shape) the last user message starts a background run, answered at once (202) with the run object, as a run's; answers to approvals are not started in the background (400).",
    answers:
      'The reply and its session (`message` and `session_id` also at the top level); or, for AI SDK messages, the UI message stream.',
    parameters: [
      'IdempotencyKey',
      {
        name: 'x-session-id',
        in: 'header',
        required: false,
        description: "The session to continue, when the body's `session_id` does not name one",
        schema: { type: 'string' },
      },
    ],
    headers: { 'Idempotent-Replayed': 'IdempotentReplayed' },
  },
  {
    method: 'post',
    path: '/agents/{agentId}/sessions/{sessionId}/approvals/{approvalId}',
    operationId: 'respondToApproval',
    scope: 'agents:run',
    handler: 'respondToApproval',
    idempotency: 'approval',
    streams: 'events',
    request: approvalBodySchema,
    response: runResponseSchema,
    statuses: guarded(404, 409, 422, 502, 504),
    tag: 'Runs',
    summary: 'Approve or deny a tool call',
    description:
      'Answers one tool call that waits for approval (a run whose `status` is `requires_approval` lists them in `pending_approvals`; so does the session). `approve: true` runs the tool; `false` denies it, and the model is told so with the `reason`. When every approval of the turn is answered, the run goes on (on the agent version it started on) and the whole turn is stored; until then the answer is the run still waiting. An approval that is not pending (unknown, or answered already) is 404; while another request holds the session past the wait bound, 409.',
    answers:
      "The run's result: `completed`, or still `requires_approval` while other approvals of the turn wait; or, when streamed, the resumed run's server-sent events ending in `done` or `error`.",
    parameters: [
      'IdempotencyKey',
      {
        name: 'Accept',
        in: 'header',
        required: false,
        description: '`text/event-stream` streams the resumed run, like `"stream": true`',
        schema: { type: 'string' },
      },
    ],
    headers: { 'Idempotent-Replayed': 'IdempotentReplayed' },
  },
  ...BACKGROUND_RUN_ROUTES,
  {
    method: 'get',
    path: '/models',
    operationId: 'listModels',
    scope: 'agents:read',
    handler: 'listModels',
    response: modelListResponseSchema,
    statuses: guarded(),
    tag: 'Discovery',
    summary: 'List the models agents may use',
    description:
      "Every model this server offers, by the name an agent's `model` takes (`provider/model`; a bare model id also works when one provider offers it), with its provider, and its context window and list price where the model catalog knows them.",
    answers: 'The offered models.',
  },
  {
    method: 'get',
    path: '/tools',
    operationId: 'listTools',
    scope: 'agents:read',
    handler: 'listTools',
    response: toolListResponseSchema,
    statuses: guarded(),
    tag: 'Discovery',
    summary: 'List the tool integrations agents may use',
    description:
      "Every tool integration this server offers, by the name an agent's `tools` (and `tool`) take, with what it does.",
    answers: 'The offered tool integrations.',
  },
  {
    method: 'get',
    path: '/agents/{agentId}/sessions',
    operationId: 'listSessions',
    scope: 'agents:read',
    handler: 'listSessions',
    response: sessionListResponseSchema,
    statuses: guarded(404),
    tag: 'Sessions',
    summary: "List an agent's sessions",
    description: "The caller's sessions of the agent, newest (first stored) first, one page at a time.",
    answers: 'One page of sessions.',
    parameters: [limit(20), 'Cursor'],
  },
  {
    method: 'get',
    path: '/agents/{agentId}/sessions/{sessionId}',
    operationId: 'getSession',
    scope: 'agents:read',
    handler: 'getSession',
    response: sessionResponseSchema,
    statuses: guarded(404),
    tag: 'Sessions',
    summary: 'Get a session and its messages',
    description: 'The session with one page of its messages, oldest first. An unknown session is 404.',
    answers: 'The session with one page of messages.',
    parameters: [limit(100), 'Cursor'],
  },
  {
    method: 'delete',
    path: '/agents/{agentId}/sessions/{sessionId}',
    operationId: 'deleteSession',
    scope: 'agents:write',
    handler: 'deleteSession',
    response: sessionDeletedResponseSchema,
    statuses: guarded(404, 409),
    tag: 'Sessions',
    summary: 'Delete a session',
    description:
      'Deletes the session and its messages, waiting (like a run) for a run of it in progress; a second delete is 404. Running with that `session_id` again starts a new conversation.',
    answers: 'The session was deleted.',
  },
  {
    method: 'get',
    path: '/openapi.json',
    operationId: 'getOpenApiDocument',
    scope: null,
    handler: 'openApiDocument',
    statuses: [200],
    tag: 'Meta',
    summary: 'This document',
    description: 'The OpenAPI 3.1 document of this API. Needs no API key. Other methods answer 405.',
    answers: 'The OpenAPI document.',
    parameters: ['Pretty'],
  },
]);

/** A route's path as Express writes it: `/agents/:agentId`. */
export function expressPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1');
}

/** The routes by path, in table order: what the router registers one `route()` for. */
export function routesByPath(routes: readonly RouteDefinition[] = ROUTES): Map<string, RouteDefinition[]> {
  const byPath = new Map<string, RouteDefinition[]>();
  for (const route of routes) byPath.set(route.path, [...(byPath.get(route.path) ?? []), route]);
  return byPath;
}

const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PATCH', 'PUT', 'DELETE'];

/** The `Allow` header of a path's routes: their methods, `HEAD` with `GET`, in one fixed order. */
export function allowOf(routes: readonly RouteDefinition[]): string {
  const methods = routes.flatMap(({ method }) => (method === 'get' ? ['GET', 'HEAD'] : [method.toUpperCase()]));
  return METHOD_ORDER.filter((method) => methods.includes(method)).join(', ');
}
