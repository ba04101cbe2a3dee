import { requestComponents } from './http-bodies.js';
import { ERROR_RESPONSE_BY_STATUS, ref } from './openapi-components.js';
import { responseComponents, streamEventSchemas } from './response-schemas.js';
import { type RouteDefinition, type RouteParameter, routesByPath } from './routes.js';

type Json = Record<string, unknown>;

const STREAM_DESCRIPTION = `With \`"stream": true\` in the body, or \`Accept: text/event-stream\`, the run answers 200 with server-sent events. Each event's \`data\` is one JSON object:

| event | data |
|---|---|
| \`text-delta\` | \`{delta}\`: the next piece of the answer (not sent for \`json_mode\`/\`json_format\` runs) |
| \`tool-call\` | \`{tool_call_id, tool_name, input}\` |
| \`tool-result\` | \`{tool_call_id, tool_name, output}\` |
| \`tool-error\` | \`{tool_call_id, tool_name, error}\`: the tool failed; the model is told and goes on |
| \`approval-request\` | \`{approval_id, tool_call_id, tool_name, input}\`: the tool call waits for approval; \`done\` follows with \`status\` \`requires_approval\` |
| \`done\` | exactly the \`data\` of a JSON answer: \`{output, session_id, status, pending_approvals, metadata}\` |
| \`error\` | the error envelope, e.g. \`{"success": false, "error": "...", "code": "provider_error", "status": 502}\` |

Each event has an \`id:\` line: 1 for the first, counting up within the stream. Exactly one \`done\` or \`error\` ends every stream. A comment line (\`: keep-alive\`) is sent every 15 s on a quiet stream. Failures found before the stream starts (400, 401, 403, 404, 409, 413, 415) are plain JSON answers with their status. If the client disconnects, the model call is aborted and nothing is stored.

With \`"background": true\` as well (runs only), the run is a background run: the first event is \`run\`, without an \`id:\`, whose data is the run object; then come the run's events as \`GET /runs/{runId}/events\` gives them, each \`id:\` the event's id in the run (resume with that route and \`Last-Event-ID\`). If the client disconnects, only the reading stops: the run goes on. An \`error\` event without an \`id:\` means the reading failed, not the run. The 429 of the in-flight limit comes before the stream, as JSON.`;

const RUN_EVENTS_DESCRIPTION = `Always answered 200 with server-sent events (whatever \`Accept\` says), the same events as a streamed run (\`text-delta\`, \`tool-call\`, \`tool-result\`, \`tool-error\`, \`approval-request\`, \`done\`, \`error\`). Each \`id:\` is the event's id in the run: 1, 2, 3... in the order the run wrote them, the same on every server and every reading. The stream starts after \`Last-Event-ID\` (or \`?after=\`; the header wins when both are given), so a client that reconnects with the last id it saw gets every later event exactly once; it ends after the run's last event, \`done\` or \`error\` (at once, with no event, when the cursor is already past it). A cancelled run ends with an \`error\` of code \`cancelled\` (409); a run whose server was lost with \`server_lost\` (503). An \`error\` event without an \`id:\` means the reading failed, not the run: reconnect with the last id. A comment line (\`: keep-alive\`) is sent every 15 s on a quiet stream. An unknown run (or another account's) is 404 and a bad cursor 400, as JSON before the stream starts. Disconnecting stops the reading, never the run.`;

const UI_STREAM_DESCRIPTION = `Messages with \`parts\` (the AI SDK's \`DefaultChatTransport\`) are answered 200 with the AI SDK's UI message stream (header \`x-vercel-ai-ui-message-stream: v1\`): \`data:\` lines of one JSON chunk each, ending with \`data: [DONE]\`. \`start\` carries \`messageMetadata: {session_id}\`; text comes as \`text-start\`/\`text-delta\`/\`text-end\`, tool calls as \`tool-input-available\` and \`tool-output-available\` (or \`tool-output-error\`, or \`tool-output-denied\`); a tool call that waits for approval as \`tool-approval-request\` (its \`approvalId\` is the approval's id), after which the stream finishes with \`finishReason: "tool-calls"\`; \`finish\` carries \`messageMetadata: {session_id, model, tokens, cost, status}\`. \`useChat\`'s \`addToolApprovalResponse\` then sends the messages again, the last one the assistant's with its tool parts in state \`approval-responded\`: each pending approval among them is answered, and the resumed run is streamed onto the same assistant message (its \`start\` chunk's \`messageId\` is that message's id) (the session is the body's \`session_id\`, \`x-session-id\`, or the assistant message's \`metadata.session_id\`). A run that fails after the stream started sends an \`error\` chunk whose \`errorText\` is the error envelope's \`error\`. Failures found before the stream starts are plain JSON answers with their status. If the client disconnects, the model call is aborted and nothing is stored. An \`Idempotency-Key\` is refused (400) for streamed chats.`;

const UI_STREAM_CONTENT = {
  schema: {
    type: 'string',
    description: 'The AI SDK UI message stream: `data: <one JSON chunk>` lines, a blank line after each',
  },
  example:
    'data: {"type":"start","messageMetadata":{"session_id":"ses_1"}}\n\ndata: {"type":"text-start","id":"text-0"}\n\ndata: {"type":"text-delta","id":"text-0","delta":"Hello"}\n\ndata: {"type":"text-end","id":"text-0"}\n\ndata: {"type":"finish","finishReason":"stop","messageMetadata":{"session_id":"ses_1","model":"echo","tokens":{"prompt":3,"completion":1,"total":4},"cost":null}}\n\ndata: [DONE]\n\n',
};

const STREAM_CONTENT = {
  schema: {
    type: 'string',
    description:
      'Server-sent events: `id: <n>` (1, 2, 3... within the stream), `event: <name>` and `data: <one JSON object>` lines, a blank line after each',
  },
  example:
    'id: 1\nevent: text-delta\ndata: {"delta":"Hel"}\n\nid: 2\nevent: done\ndata: {"output":"Hello","session_id":"ses_1","status":"completed","pending_approvals":[],"metadata":{"model":"echo","agent_version":1,"tool_used":null,"tools_used":[],"tokens":{"prompt":3,"completion":1,"total":4},"omitted_messages":0}}\n\n',
  // The data schema of each event, by event name.
  'x-agenthost-events': Object.fromEntries(
    Object.entries(streamEventSchemas).map(([event, schema]) => [
      event,
      ref('schemas', responseComponents.get(schema)!.id),
    ]),
  ),
};

const RUN_EVENTS_CONTENT = {
  ...STREAM_CONTENT,
  schema: {
    type: 'string',
    description:
      "Server-sent events: `id: <the event's id in the run>`, `event: <name>` and `data: <one JSON object>` lines, a blank line after each",
  },
  example:
    'id: 3\nevent: text-delta\ndata: {"delta":"lo"}\n\nid: 4\nevent: error\ndata: {"success":false,"error":"The run was cancelled","code":"cancelled","status":409}\n\n',
};

/** What each kind of stream a route may answer with is, for the document. */
const STREAMS = {
  events: { description: STREAM_DESCRIPTION, content: STREAM_CONTENT },
  'ui-messages': { description: UI_STREAM_DESCRIPTION, content: UI_STREAM_CONTENT },
  'run-events': { description: RUN_EVENTS_DESCRIPTION, content: RUN_EVENTS_CONTENT },
} as const;

/** The schema of the document itself, as its one public route answers it. */
const DOCUMENT_SCHEMA = {
  type: 'object',
  properties: {
    openapi: { type: 'string', pattern: '^3\\.1\\.\\d+$' },
    info: { type: 'object' },
    paths: { type: 'object' },
  },
  required: ['openapi', 'info', 'paths'],
};

const parameter = (p: RouteParameter) => (typeof p === 'string' ? ref('parameters', p) : p);

const successHeaders = (route: RouteDefinition): Json => ({
  'x-request-id': ref('headers', 'XRequestId'),
  ...Object.fromEntries(Object.entries(route.headers ?? {}).map(([name, c]) => [name, ref('headers', c)])),
});

function successResponse(route: RouteDefinition): Json {
  const json = {
    schema: route.response ? ref('schemas', responseComponents.get(route.response)!.id) : DOCUMENT_SCHEMA,
  };
  return {
    description: route.answers,
    headers: successHeaders(route),
    content: {
      // An operation that always streams has no JSON success answer.
      ...(route.streams !== 'run-events' && { 'application/json': json }),
      ...(route.streams && { 'text/event-stream': STREAMS[route.streams].content }),
    },
  };
}

/** The 202 of a route that may start a background run: the run object, at once. */
function acceptedResponse(route: RouteDefinition, accepted: NonNullable<RouteDefinition['accepted']>): Json {
  return {
    description: 'With `"background": true` (and no `stream`): the background run, accepted.',
    headers: successHeaders(route),
    content: { 'application/json': { schema: ref('schemas', responseComponents.get(accepted)!.id) } },
  };
}

function operation(route: RouteDefinition): Json {
  const description = route.streams
    ? `${route.description}\n\n${STREAMS[route.streams].description}`
    : route.description;
  const errors = route.statuses
    .filter((status) => status >= 400)
    .map((status) => [String(status), ref('responses', ERROR_RESPONSE_BY_STATUS[status]!)]);
  return {
    operationId: route.operationId,
    tags: [route.tag],
    summary: route.summary,
    ...(description !== undefined && { description }),
    security: route.scope ? [{ ApiKey: [route.scope] }] : [],
    ...(route.parameters && { parameters: route.parameters.map(parameter) }),
    ...(route.request && {
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: ref('schemas', requestComponents.get(route.request)!.id),
            ...(route.example && { example: route.example }),
          },
        },
      },
    }),
    responses: {
      '200': successResponse(route),
      ...(route.accepted && { '202': acceptedResponse(route, route.accepted) }),
      ...Object.fromEntries(errors),
    },
  };
}

/** The parameters every operation of a path takes: its path parameters, then `pretty` and `x-request-id`. */
function pathParameters(path: string): Json[] {
  const named = [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) =>
    ref('parameters', name![0]!.toUpperCase() + name!.slice(1)),
  );
  return [...named, ref('parameters', 'Pretty'), ref('parameters', 'RequestId')];
}

/** The document's `paths`, one operation per route of the table; the public route takes its parameters alone. */
export function pathsOf(routes: readonly RouteDefinition[]): Json {
  return Object.fromEntries(
    [...routesByPath(routes)].map(([path, operations]) => [
      path,
      {
        ...(operations.some((route) => route.scope !== null) && { parameters: pathParameters(path) }),
        ...Object.fromEntries(operations.map((route) => [route.method, operation(route)])),
      },
    ]),
  );
}
