import {
  AgentService,
  combineModels,
  createAgentInputSchema,
  echoModels,
  runAgentInputSchema,
  StorageUnavailableError,
  staticModels,
  staticTools,
  updateAgentInputSchema,
} from '@agenthost/core';
import { MemoryStore } from '@agenthost/storage';
import { validate } from '@readme/openapi-parser';
import { tool } from 'ai';
import { convertArrayToReadableStream, MockLanguageModelV4 } from 'ai/test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import express from 'express';
import request from 'supertest';
import { beforeEach, describe, expect, test, vi } from 'vitest';
import { z } from 'zod';
import { addTool } from './add-tool-fixture.js';
import { staticKeys } from './auth.js';
import { approvalBodySchema, runAgentBodySchema } from './http-bodies.js';
import { openApiDocument } from './openapi.js';
import { checkHttpResponse, checkResponse, matchPath, parseEventStream } from './openapi-conformance.js';
import { createAgentRouter } from './router.js';
import { ROUTES } from './routes.js';

const KEY = 'key-openapi-0123456789abcdef';
const READER = 'key-reader-0123456789abcdef';
const agentBody = { name: 'Support', instruction: 'You are helpful.', model: 'echo' };
const document = openApiDocument();

/** Every operation of the route table with the statuses it can answer, as `METHOD /path`. */
const OPERATIONS = Object.fromEntries(ROUTES.map((route) => [`${route.method.toUpperCase()} ${route.path}`, route]));

const operations = (doc: Record<string, unknown>) =>
  Object.entries(
    doc.paths as Record<
      string,
      Record<string, { responses: Record<string, unknown>; security?: { ApiKey: string[] }[] }>
    >,
  ).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => method !== 'parameters')
      .map(([method, operation]) => ({ key: `${method.toUpperCase()} ${path}`, operation })),
  );

describe('the document: valid OpenAPI and JSON Schema', () => {
  test('is a valid OpenAPI 3.1 document', async () => {
    const result = await validate(structuredClone(document) as never);
    expect(result).toStrictEqual({ valid: true, warnings: [], specification: 'OpenAPI' });
    expect(document).toMatchObject({
      openapi: '3.1.0',
      info: { title: 'agenthost', version: expect.stringMatching(/^\d+\.\d+\.\d+/) },
      servers: [{ url: '/api/v1' }],
    });
  });

  test('the validator does refuse a broken document', async () => {
    const broken = structuredClone(document) as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    broken.paths['/agents']!.get!.responses['200'] = { content: {} };
    const result = await validate(broken as never);
    expect(result.valid).toBe(false);
  });

  test('every schema is a valid JSON Schema 2020-12 that compiles in strict mode', () => {
    const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, strictRequired: false, validateFormats: false });
    ajv.addVocabulary(['example']);
    const schemas = (document.components as { schemas: Record<string, object> }).schemas;
    const bundle = JSON.parse(
      JSON.stringify({ $id: 'urn:agenthost:check', $defs: schemas }).replaceAll(
        '"#/components/schemas/',
        '"urn:agenthost:check#/$defs/',
      ),
    );
    expect(ajv.validateSchema(bundle), ajv.errorsText(ajv.errors)).toBe(true);
    ajv.addSchema(bundle);
    for (const name of Object.keys(schemas))
      expect(() => ajv.getSchema(`urn:agenthost:check#/$defs/${name}`), name).not.toThrow();
  });
});

describe('the document: routes, scopes and servers', () => {
  test('lists every route and status of the route table, with the scope each needs, and no more', () => {
    const listed = Object.fromEntries(
      operations(document).map(({ key, operation }) => [
        key,
        { statuses: Object.keys(operation.responses).map(Number), scope: operation.security?.[0]?.ApiKey ?? null },
      ]),
    );
    expect(listed).toStrictEqual(
      Object.fromEntries(
        Object.entries(OPERATIONS).map(([key, route]) => [
          key,
          { statuses: route.statuses, scope: route.scope && [route.scope] },
        ]),
      ),
    );
    // The table's scopes are the ones the API promises (docs/http-api.md): reads, writes and runs.
    expect(Object.fromEntries(Object.entries(OPERATIONS).map(([key, route]) => [key, route.scope]))).toStrictEqual({
      'POST /agents': 'agents:write',
      'GET /agents': 'agents:read',
      'GET /agents/{agentId}': 'agents:read',
      'PATCH /agents/{agentId}': 'agents:write',
      'PUT /agents/{agentId}': 'agents:write',
      'DELETE /agents/{agentId}': 'agents:write',
      'GET /agents/{agentId}/versions': 'agents:read',
      'GET /agents/{agentId}/versions/{version}': 'agents:read',
      'POST /agents/{agentId}/versions/{version}/restore': 'agents:write',
      'POST /agents/{agentId}/run': 'agents:run',
      'POST /agents/{agentId}/chat': 'agents:run',
      'POST /agents/{agentId}/sessions/{sessionId}/approvals/{approvalId}': 'agents:run',
      'GET /agents/{agentId}/runs': 'agents:read',
      'GET /runs/{runId}': 'agents:read',
      'GET /runs/{runId}/events': 'agents:read',
      'POST /runs/{runId}/cancel': 'agents:run',
      'GET /agents/{agentId}/sessions': 'agents:read',
      'GET /agents/{agentId}/sessions/{sessionId}': 'agents:read',
      'DELETE /agents/{agentId}/sessions/{sessionId}': 'agents:write',
      'GET /models': 'agents:read',
      'GET /tools': 'agents:read',
      'GET /openapi.json': null,
    });
    expect(document).toMatchObject({
      security: [{ ApiKey: [] }],
      components: { securitySchemes: { ApiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } } },
    });
  });

  test("the runs' retention is the server's, named by no number and no server setting", () => {
    const runOperations = operations(document).filter(({ key }) => /^GET \/(agents\/\{agentId\}\/)?runs/.test(key));
    expect(
      runOperations.map(({ key, operation }) => [key, (operation as { description?: string }).description]),
    ).toStrictEqual(
      runOperations.map(({ key }) => [
        key,
        expect.stringContaining("the server's configured retention (see docs/background-runs.md)"),
      ]),
    );
    // The document serves mounted routers too, whose host has no such settings.
    expect(JSON.stringify(document)).not.toMatch(/AGENTHOST_|an hour|a week/);
  });

  test('names the given server URL, and each call returns a copy of its own', () => {
    expect(openApiDocument({ serverUrl: 'https://agents.example/api/v1' }).servers).toStrictEqual([
      { url: 'https://agents.example/api/v1', description: 'This server' },
    ]);
    const first = openApiDocument() as { info: { title: string } };
    first.info.title = 'changed';
    expect((openApiDocument() as { info: { title: string } }).info.title).toBe('agenthost');
  });
});

describe('the document: request bodies', () => {
  test('the request bodies are the zod schemas that validate requests', () => {
    const schemas = (document.components as { schemas: Record<string, { properties: Record<string, object> }> })
      .schemas;
    const withoutDescriptions = (properties: Record<string, object>) =>
      Object.fromEntries(
        Object.entries(properties).map(([name, { description: _, ...rest }]: [string, { description?: string }]) => [
          name,
          rest,
        ]),
      );
    const converted = (schema: z.ZodType) =>
      (
        z.toJSONSchema(schema, { io: 'input', target: 'draft-2020-12', unrepresentable: 'any' }) as {
          properties: Record<string, object>;
        }
      ).properties;
    // Create and change bodies are core's, with the truffle-ai SDK's names of model and tool.
    const aliases = { selectedModel: { type: 'string' }, selectedTool: { type: ['string', 'null'] } };
    expect(withoutDescriptions(schemas.CreateAgentInput!.properties)).toStrictEqual({
      ...converted(createAgentInputSchema),
      ...aliases,
    });
    expect(withoutDescriptions(schemas.RunAgentInput!.properties)).toStrictEqual(converted(runAgentBodySchema));
    // The run body is core's run input and the transport's `stream` and `background` flags.
    expect(converted(runAgentBodySchema)).toStrictEqual({
      ...converted(runAgentInputSchema),
      stream: { type: ['boolean', 'null'] },
      background: { type: ['boolean', 'null'] },
    });
    const { config, ...update } = schemas.UpdateAgentInput!.properties;
    expect(withoutDescriptions(update)).toStrictEqual({ ...converted(updateAgentInputSchema), ...aliases });
    expect(withoutDescriptions((config as { properties: Record<string, object> }).properties)).toStrictEqual({
      ...converted(updateAgentInputSchema),
      ...aliases,
    });

    // The document and the zod schema agree on what they accept (the zod schema's refinements aside).
    const ajv = new Ajv2020({ strict: false });
    for (const [name, schema, bodies] of [
      [
        'CreateAgentInput',
        createAgentInputSchema,
        [
          agentBody,
          { ...agentBody, tool: null, extra: 1 },
          { name: 'x' },
          { ...agentBody, tool: 5 },
          { ...agentBody, name: 'x'.repeat(201) },
          [],
        ],
      ],
      [
        'RunAgentInput',
        runAgentBodySchema,
        [
          { input: 'hi' },
          { input_data: 'hi', session_id: null },
          {},
          { input: 'hi', session_id: 'bad id' },
          { input: 'hi', json_format: 3 },
          { input: 'hi', stream: 'yes' },
          { input: 'hi', stream: true, background: true },
          { input: 'hi', background: 'yes' },
        ],
      ],
      [
        'ApprovalResponseInput',
        approvalBodySchema,
        [
          { approve: true },
          { approve: false, reason: 'not now', stream: true },
          {},
          { approve: 'yes' },
          { approve: true, reason: 5 },
          { approve: true, stream: 'yes' },
        ],
      ],
    ] as const) {
      const check = ajv.compile(schemas[name]!);
      for (const body of bodies)
        expect([name, body, check(body)]).toStrictEqual([name, body, (schema as z.ZodType).safeParse(body).success]);
    }
  });
});

/** An agent and the headers of a JSON answer, as checkResponse is given them. */
const agent = {
  agent_id: 'agt_1',
  name: 'A',
  config: {
    agent_id: 'agt_1',
    name: 'A',
    instruction: 'I',
    model: 'echo',
    tool: null,
    tools: [],
    require_approval: [],
    component: 'Chat',
    temperature: null,
    top_p: null,
    max_output_tokens: null,
    fallback_models: [],
    metadata: {},
    selectedModel: 'echo',
    selectedTool: null,
  },
  metadata: {},
  version: 1,
  created_at: '2026-11-22T10:00:00.000Z',
  updated_at: '2026-11-22T10:00:00.000Z',
};
const headers = { 'x-request-id': 'r1', 'content-type': 'application/json; charset=utf-8' };
/** Answers checkResponse must refuse: what is wrong, the request, the answer, and what it must say. */
const REFUSED: [string, string, string, number, unknown, Record<string, string>, RegExp][] = [
  [
    'a status the operation does not list',
    'GET',
    '/api/v1/agents',
    418,
    { success: false, error: 'x', status: 418 },
    headers,
    /lists only 200, 400/,
  ],
  [
    'a field the schema does not have',
    'GET',
    '/api/v1/agents/agt_1',
    200,
    { success: true, data: { ...agent, secret: 1 }, status: 200 },
    headers,
    /must NOT have additional properties/,
  ],
  [
    'a timestamp without milliseconds',
    'GET',
    '/api/v1/agents/agt_1',
    200,
    { success: true, data: { ...agent, created_at: '2026-11-22T10:00:00Z' }, status: 200 },
    headers,
    /created_at must match pattern/,
  ],
  [
    'an error envelope where data belongs',
    'GET',
    '/api/v1/agents',
    200,
    { success: false, error: 'x', status: 200 },
    headers,
    /body does not match/,
  ],
  [
    'an unlisted content type',
    'GET',
    '/api/v1/agents',
    200,
    'hi',
    { ...headers, 'content-type': 'text/plain' },
    /text\/plain is not one the document lists/,
  ],
  [
    'a missing x-request-id',
    'GET',
    '/api/v1/agents',
    200,
    { success: true, data: [], status: 200 },
    { 'content-type': 'application/json' },
    /required header x-request-id is missing/,
  ],
  [
    'a 405 whose Allow differs',
    'GET',
    '/api/v1/agents/a/run',
    405,
    { success: false, error: 'x', code: 'method_not_allowed', status: 405 },
    { ...headers, allow: 'GET, POST' },
    /Allow is "GET, POST" but the document lists POST/,
  ],
  [
    'a 404 for a listed path with another method',
    'GET',
    '/api/v1/agents/a/run',
    404,
    { success: false, error: 'x', code: 'not_found', status: 404 },
    headers,
    /may only answer/,
  ],
  [
    'a 405 for an unknown path',
    'GET',
    '/api/v1/nowhere',
    405,
    { success: false, error: 'x', code: 'method_not_allowed', status: 405 },
    { ...headers, allow: 'GET' },
    /an unknown path may only answer/,
  ],
  [
    'an event the document does not list',
    'POST',
    '/api/v1/agents/a/run',
    200,
    'event: progress\ndata: {}\n\n',
    { ...headers, 'content-type': 'text/event-stream' },
    /"progress", which the document does not list/,
  ],
  [
    'an event whose data is wrong',
    'POST',
    '/api/v1/agents/a/run',
    200,
    'event: text-delta\ndata: {"text":"x"}\n\n',
    { ...headers, 'content-type': 'text/event-stream' },
    /event 0 \("text-delta"\) does not match/,
  ],
];

describe('checkResponse', () => {
  test('accepts a documented answer given by template or by URL', () => {
    checkResponse(document, 'GET', '/agents/{agentId}', 200, { success: true, data: agent, status: 200 }, { headers });
    checkResponse(
      document,
      'get',
      'http://127.0.0.1:3000/api/v1/agents/agt_1?pretty=true',
      200,
      { success: true, data: agent, status: 200 },
      { headers },
    );
    checkResponse(document, 'HEAD', '/api/v1/agents/agt_1', 200, undefined, { headers });
    expect(matchPath(document, '/api/v1/agents/agt_1/sessions/s-1')).toBe('/agents/{agentId}/sessions/{sessionId}');
    expect(matchPath(document, '/api/v1/openapi.json')).toBe('/openapi.json');
    expect(matchPath(document, '/api/v1/elsewhere')).toBeNull();
  });

  test.each(REFUSED)('refuses %s', (_, method, url, status, body, responseHeaders, message) => {
    expect(() => checkResponse(document, method, url, status, body, { headers: responseHeaders })).toThrow(message);
  });
});

// The model names the agents of the tests below use: each does one thing a test needs.
/** Holds the `slow` model's run, once it has started (`entered`), until the test opens it. */
let gate: { entered: Promise<void>; enter: () => void; opened: Promise<void>; open: () => void };
const usage = (input: number, output: number) => ({
  inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: output, text: output, reasoning: 0 },
});
type StreamPart =
  Awaited<ReturnType<MockLanguageModelV4['doStream']>>['stream'] extends ReadableStream<infer Part> ? Part : never;
const stream = (...parts: StreamPart[]) => ({ stream: convertArrayToReadableStream(parts) });
const text = (value: string): StreamPart[] => [
  { type: 'text-start', id: 't' },
  { type: 'text-delta', id: 't', delta: value },
  { type: 'text-end', id: 't' },
  { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: usage(10, 2) },
];

function testModels() {
  return combineModels(
    echoModels(),
    staticModels({
      // Calls the agent's first tool, then answers.
      tooling: new MockLanguageModelV4({
        doGenerate: async ({ prompt, tools }) => {
          const done = prompt.at(-1)?.role === 'tool';
          const name = tools?.[0]?.name ?? 'none';
          return {
            content: done
              ? [{ type: 'text', text: 'Done.' }]
              : [
                  {
                    type: 'tool-call',
                    toolCallId: 'call_1',
                    toolName: name,
                    input: name === 'add' ? '{"a":2,"b":3}' : '{}',
                  },
                ],
            finishReason: done ? { unified: 'stop', raw: 'stop' } : { unified: 'tool-calls', raw: 'tool_calls' },
            usage: usage(10, 2),
            warnings: [],
          };
        },
        doStream: async ({ prompt, tools }) => {
          if (prompt.at(-1)?.role === 'tool') return stream(...text('Done.'));
          const name = tools?.[0]?.name ?? 'none';
          return stream(
            { type: 'tool-call', toolCallId: 'call_1', toolName: name, input: name === 'add' ? '{"a":2,"b":3}' : '{}' },
            { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage: usage(10, 2) },
          );
        },
      }),
      failing: new MockLanguageModelV4({
        doGenerate: async () => {
          throw new Error('socket hang up');
        },
        doStream: async () =>
          stream(
            { type: 'text-start', id: 't' },
            { type: 'text-delta', id: 't', delta: 'partial' },
            { type: 'error', error: new Error('upstream reset') },
          ),
      }),
      hanging: new MockLanguageModelV4({
        doGenerate: (options) =>
          new Promise((_, reject) =>
            options.abortSignal?.addEventListener('abort', () => reject(options.abortSignal?.reason)),
          ),
      }),
      slow: new MockLanguageModelV4({
        doGenerate: async () => {
          gate.enter();
          await gate.opened;
          return {
            content: [{ type: 'text', text: 'Finally.' }],
            finishReason: { unified: 'stop', raw: 'stop' },
            usage: usage(5, 1),
            warnings: [],
          };
        },
      }),
    }),
  );
}

let service: AgentService;
let app: express.Express;
/** `METHOD /template STATUS` of every response checked, to prove the coverage at the end. */
const seen = new Set<string>();

/** A fresh service and app for each test: the models above, two tools, a full key and a read-only one. */
function setUpApp(): void {
  let enter!: () => void;
  let open!: () => void;
  gate = {
    entered: new Promise<void>((resolve) => (enter = resolve)),
    enter: () => enter(),
    opened: new Promise<void>((resolve) => (open = resolve)),
    open: () => open(),
  };
  const tools = staticTools({
    calculator: {
      add: addTool(),
    },
    broken: {
      fail: tool({
        description: 'Fails',
        inputSchema: z.object({}),
        execute: async (): Promise<string> => {
          throw new Error('the tool broke');
        },
      }),
    },
  });
  service = new AgentService({
    store: new MemoryStore(),
    models: testModels(),
    tools,
    maxRetries: 0,
    providerTimeoutMs: 2_000,
    runWaitMs: 50,
  });
  app = express();
  app.use(
    '/api/v1',
    createAgentRouter(service, {
      resolveKey: staticKeys([
        { account: 'acme', key: KEY },
        { account: 'acme', key: READER, scopes: ['agents:read'] },
      ]),
      bodyLimit: '4kb',
      logger: { error: () => {} },
    }),
  );
}

/** Sends a request, checks its response against the document, and notes what was seen. */
async function conform(req: request.Test) {
  const res = await req;
  checkHttpResponse(document, req.method, req.url, res);
  const template = matchPath(document, req.url);
  seen.add(`${req.method} ${template ?? '(unknown path)'} ${res.status}`);
  return res;
}
const as = (key: string | null, target: express.Express = app) => {
  const withKey = (req: request.Test) => (key ? req.set('x-api-key', key) : req);
  return {
    get: (path: string) => withKey(request(target).get(`/api/v1${path}`)),
    head: (path: string) => withKey(request(target).head(`/api/v1${path}`)),
    post: (path: string, body?: string | object) => withKey(request(target).post(`/api/v1${path}`)).send(body),
    patch: (path: string, body: object) => withKey(request(target).patch(`/api/v1${path}`)).send(body),
    put: (path: string, body: object) => withKey(request(target).put(`/api/v1${path}`)).send(body),
    delete: (path: string) => withKey(request(target).delete(`/api/v1${path}`)),
  };
};
const api = () => as(KEY);
const createAgent = async (body: object = agentBody) =>
  (await conform(api().post('/agents', body))).body.data.agent_id as string;

describe('every response matches the document: agents', () => {
  beforeEach(setUpApp);

  test('agents: create, list (whole and paged), get, change, delete', async () => {
    const id = await createAgent();
    await createAgent({ ...agentBody, name: 'Second', tool: 'calculator' });
    expect((await conform(api().get('/agents'))).body.data).toHaveLength(2);
    const page = await conform(api().get('/agents?limit=1&order=desc'));
    expect([page.status, page.body.data.length, page.headers['x-next-cursor'], page.headers.link]).toStrictEqual([
      200,
      1,
      expect.any(String),
      expect.stringContaining('rel="next"'),
    ]);
    const next = /^<\/api\/v1(\/agents\?[^>]+)>; rel="next"$/.exec(page.headers.link!)![1]!;
    expect((await conform(api().get(next))).body.data.map((a: { name: string }) => a.name)).toStrictEqual(['Support']);
    expect((await conform(api().get(`/agents/${id}?pretty=true`))).text).toContain('\n  "data": {');
    expect((await conform(api().head(`/agents/${id}`))).status).toBe(200);
    expect((await conform(api().patch(`/agents/${id}`, { name: 'Renamed', tool: 'none' }))).body.data.name).toBe(
      'Renamed',
    );
    expect(
      (await conform(api().put(`/agents/${id}`, { config: { instruction: 'Be brief.', component: 'Widget' } }))).body
        .data.config,
    ).toMatchObject({ instruction: 'Be brief.', component: 'Widget' });
    const versions = await conform(api().get(`/agents/${id}/versions?limit=2`));
    expect(versions.body.data.versions.map((v: { version: number }) => v.version)).toStrictEqual([3, 2]);
    expect((await conform(api().get(`/agents/${id}/versions?cursor=${versions.body.data.next_cursor}`))).status).toBe(
      200,
    );
    expect((await conform(api().get(`/agents/${id}/versions/1`))).body.data.version).toBe(1);
    expect((await conform(api().post(`/agents/${id}/versions/1/restore`))).body.data.version).toBe(4);
    expect((await conform(api().get(`/agents/${id}/versions/9`))).status).toBe(404);
    expect((await conform(api().post(`/agents/${id}/versions/9/restore`))).status).toBe(404);
    expect((await conform(api().get('/agents?metadata[team]=x'))).body.data).toStrictEqual([]);
    expect((await conform(api().get('/agents?metadata[bad key]=x'))).status).toBe(400);
    expect((await conform(api().delete(`/agents/${id}`))).body.data).toStrictEqual({ agent_id: id, deleted: true });
    expect((await conform(api().delete(`/agents/${id}`))).status).toBe(404);
    expect((await conform(api().get(`/agents/${id}`))).status).toBe(404);
    expect((await conform(api().patch(`/agents/${id}`, { name: 'x' }))).status).toBe(404);
    expect((await conform(api().get('/openapi.json'))).body).toStrictEqual(document);
    expect((await conform(api().get('/models'))).body.data.map((m: { name: string }) => m.name)).toContain('echo');
    expect((await conform(api().get('/tools'))).status).toBe(200);
  });
});

describe('every response matches the document: runs and sessions', () => {
  beforeEach(setUpApp);

  test('runs answered as JSON, and their sessions', async () => {
    const id = await createAgent();
    const first = await conform(api().post(`/agents/${id}/run`, { input: 'Hello there', session_id: 's-1' }));
    expect(first.body.data.output).toBe('Echo: Hello there');
    await conform(api().post(`/agents/${id}/run`, { input_data: 'Again', session_id: 's-1' }));
    await conform(api().post(`/agents/${id}/run`, { input: 'Elsewhere' }));
    const sessions = await conform(api().get(`/agents/${id}/sessions?limit=1`));
    expect([sessions.body.data.sessions.length, sessions.body.data.next_cursor]).toStrictEqual([1, expect.any(String)]);
    await conform(api().get(`/agents/${id}/sessions?cursor=${sessions.body.data.next_cursor}`));
    const session = await conform(api().get(`/agents/${id}/sessions/s-1?limit=2`));
    expect([
      session.body.data.message_count,
      session.body.data.messages.length,
      session.body.data.next_cursor,
    ]).toStrictEqual([4, 2, expect.any(String)]);
    await conform(api().get(`/agents/${id}/sessions/s-1?cursor=${session.body.data.next_cursor}`));
    expect((await conform(api().delete(`/agents/${id}/sessions/s-1`))).body.data).toStrictEqual({
      session_id: 's-1',
      deleted: true,
    });
    expect((await conform(api().delete(`/agents/${id}/sessions/s-1`))).status).toBe(404);
    expect((await conform(api().get(`/agents/${id}/sessions/s-1`))).status).toBe(404);
    expect((await conform(api().get('/agents/agt_missing/sessions'))).status).toBe(404);
    expect((await conform(api().post('/agents/agt_missing/run', { input: 'hi' }))).status).toBe(404);
  });

  test('streamed runs: every event, by body flag and by Accept header', async () => {
    const echo = await createAgent();
    const byFlag = await conform(api().post(`/agents/${echo}/run`, { input: 'one two', stream: true }));
    expect(parseEventStream(byFlag.text).map((e) => e.event)).toStrictEqual(
      expect.arrayContaining(['text-delta', 'done']),
    );
    const byAccept = await conform(
      api().post(`/agents/${echo}/run`, { input: 'three' }).set('accept', 'text/event-stream'),
    );
    expect(byAccept.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    const adder = await createAgent({ ...agentBody, model: 'tooling', tool: 'calculator' });
    const added = parseEventStream(
      (await conform(api().post(`/agents/${adder}/run`, { input: 'add', stream: true }))).text,
    );
    expect(added.map((e) => e.event)).toStrictEqual(['tool-call', 'tool-result', 'text-delta', 'done']);
    const breaker = await createAgent({ ...agentBody, model: 'tooling', tool: 'broken' });
    const broke = parseEventStream(
      (await conform(api().post(`/agents/${breaker}/run`, { input: 'break', stream: true }))).text,
    );
    expect(broke.map((e) => e.event)).toStrictEqual(['tool-call', 'tool-error', 'text-delta', 'done']);
    const failer = await createAgent({ ...agentBody, model: 'failing' });
    const failed = parseEventStream(
      (await conform(api().post(`/agents/${failer}/run`, { input: 'x', stream: true }))).text,
    );
    expect(failed.at(-1)).toStrictEqual({
      event: 'error',
      data: { success: false, error: 'The model provider failed to answer', code: 'provider_error', status: 502 },
    });
  });
});

describe('every response matches the document: background runs', () => {
  beforeEach(setUpApp);

  /** Reads the run until it has finished. */
  async function finishedRun(runId: string) {
    for (;;) {
      const run = (await conform(api().get(`/runs/${runId}`))).body.data;
      if (!['queued', 'running'].includes(run.status)) return run;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  test('started as JSON (202) and streamed, read, listed, their events, cancelled; the chat route too', async () => {
    const id = await createAgent();
    const started = await conform(api().post(`/agents/${id}/run`, { input: 'Hello there', background: true }));
    expect([started.status, started.body.data.status]).toStrictEqual([202, 'queued']);
    const done = await finishedRun(started.body.data.run_id);
    expect(done.result.output).toBe('Echo: Hello there');
    const streamed = await conform(
      api().post(`/agents/${id}/run`, { input: 'one two', stream: true, background: true }),
    );
    const frames = parseEventStream(streamed.text);
    expect([frames[0]!.event, frames.at(-1)!.event]).toStrictEqual(['run', 'done']);
    const read = await conform(api().get(`/runs/${started.body.data.run_id}/events?after=0`));
    expect(parseEventStream(read.text).at(-1)).toStrictEqual({ event: 'done', data: done.result });
    const resumed = await conform(
      api().get(`/runs/${started.body.data.run_id}/events`).set('last-event-id', String(done.last_event_id)),
    );
    expect(parseEventStream(resumed.text)).toStrictEqual([]);
    expect((await conform(api().head(`/runs/${started.body.data.run_id}/events`))).status).toBe(200);
    const listed = await conform(api().get(`/agents/${id}/runs?limit=1`));
    expect(listed.body.data.runs).toHaveLength(1);
    await conform(api().get(`/agents/${id}/runs?cursor=${listed.body.data.next_cursor}`));
    expect((await conform(api().post(`/runs/${started.body.data.run_id}/cancel`))).body.data).toStrictEqual(done);
    const chat = await conform(
      api().post(`/agents/${id}/chat`, { messages: [{ role: 'user', content: 'Hi' }], background: true }),
    );
    expect(chat.status).toBe(202);
    await finishedRun(chat.body.data.run_id);
    expect((await conform(api().get('/runs/run_missing'))).status).toBe(404);
    expect((await conform(api().get('/runs/run_missing/events'))).status).toBe(404);
    expect((await conform(api().post('/runs/run_missing/cancel'))).status).toBe(404);
    expect((await conform(api().get('/agents/agt_missing/runs'))).status).toBe(404);
    expect((await conform(api().get(`/runs/${started.body.data.run_id}/events?after=-1`))).status).toBe(400);
  });
});

describe('every response matches the document: chats', () => {
  beforeEach(setUpApp);

  test("chats: the truffle-ai shape as JSON, the AI SDK's as its UI message stream", async () => {
    const id = await createAgent();
    const json = await conform(api().post(`/agents/${id}/chat`, { messages: [{ role: 'user', content: 'Hi' }] }));
    expect(json.body).toStrictEqual({
      success: true,
      data: {
        message: 'Echo: Hi',
        session_id: expect.any(String),
        status: 'completed',
        pending_approvals: [],
        metadata: expect.any(Object),
      },
      status: 200,
      message: 'Echo: Hi',
      session_id: json.body.data.session_id,
    });
    const streamed = await conform(
      api().post(`/agents/${id}/chat`, {
        messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Hi' }] }],
      }),
    );
    expect([streamed.status, streamed.headers['x-vercel-ai-ui-message-stream']]).toStrictEqual([200, 'v1']);
    expect(streamed.text).toMatch(/^: stream-open\n\ndata: \{"type":"start".*data: \[DONE\]\n\n$/s);
  });
});

describe('every response matches the document: approvals', () => {
  beforeEach(setUpApp);

  test('a run paused for approval, its session, and the answers, as JSON and streamed', async () => {
    const id = await createAgent({ ...agentBody, model: 'tooling', tool: 'calculator', require_approval: ['add'] });
    const paused = await conform(api().post(`/agents/${id}/run`, { input: 'add', session_id: 's-a' }));
    expect([paused.body.data.status, paused.body.data.pending_approvals.length]).toStrictEqual([
      'requires_approval',
      1,
    ]);
    const approvalId = paused.body.data.pending_approvals[0].approval_id as string;
    expect((await conform(api().get(`/agents/${id}/sessions/s-a`))).body.data.pending_approvals).toStrictEqual(
      paused.body.data.pending_approvals,
    );
    expect((await conform(api().post(`/agents/${id}/run`, { input: 'again', session_id: 's-a' }))).status).toBe(409);
    const approval = `/agents/${id}/sessions/s-a/approvals/${approvalId}`;
    expect((await conform(api().post(approval, { approve: 'yes' }))).status).toBe(400);
    const done = await conform(api().post(approval, { approve: true }));
    expect([done.body.data.status, done.body.data.output]).toStrictEqual(['completed', 'Done.']);
    const session = await conform(api().get(`/agents/${id}/sessions/s-a`));
    expect(session.body.data.messages[1].parts.map((part: { type: string }) => part.type)).toStrictEqual([
      'tool-call',
      'tool-approval-request',
      'tool-approval-response',
      'tool-result',
      'text',
    ]);
    expect((await conform(api().post(approval, { approve: true }))).status).toBe(404);

    const streamed = await conform(api().post(`/agents/${id}/run`, { input: 'add', session_id: 's-b', stream: true }));
    const events = parseEventStream(streamed.text);
    expect(events.map((e) => e.event)).toStrictEqual(['tool-call', 'approval-request', 'done']);
    const answer = `/agents/${id}/sessions/s-b/approvals/${(events[1]!.data as { approval_id: string }).approval_id}`;
    const resumed = await conform(api().post(answer, { approve: false, reason: 'no', stream: true }));
    expect(parseEventStream(resumed.text).at(-1)?.event).toBe('done');
  });
});

describe('every response matches the document: request examples', () => {
  beforeEach(setUpApp);

  test('every request example of the document works as sent, against an echo agent', async () => {
    type Operation = { requestBody?: { content: { 'application/json': { example?: object } } } };
    const paths = document.paths as Record<string, Record<string, Operation>>;
    const examples = Object.entries(paths).flatMap(([path, operations]) =>
      Object.entries(operations).flatMap(([method, operation]) => {
        const example = operation.requestBody?.content['application/json'].example;
        return example ? [{ method, path, example }] : [];
      }),
    );
    expect(examples.map(({ method, path }) => `${method.toUpperCase()} ${path}`)).toStrictEqual([
      'POST /agents',
      'PATCH /agents/{agentId}',
      'PUT /agents/{agentId}',
      'POST /agents/{agentId}/run',
      'POST /agents/{agentId}/chat',
    ]);
    for (const { method, path, example } of examples) {
      const id = await createAgent();
      const url = path.replace('{agentId}', id);
      const res = await conform(api()[method as 'post' | 'patch' | 'put'](url, example));
      expect([`${method} ${path}`, res.status]).toStrictEqual([`${method} ${path}`, 200]);
    }
  });
});

describe('every response matches the document: client errors', () => {
  beforeEach(setUpApp);

  test('client errors: 400, 401, 403, 404, 405, 413, 415', async () => {
    const id = await createAgent();
    const invalid = await conform(api().post('/agents', { name: ' ', model: 'echo' }));
    expect([invalid.status, Object.keys(invalid.body.details).sort()]).toStrictEqual([400, ['instruction', 'name']]);
    expect(
      (await conform(api().post('/agents', { ...agentBody, model: 'nope' }))).body.details.model.message,
    ).toContain('offered: agenthost: echo');
    expect((await conform(api().post('/agents', '{"name": ').set('content-type', 'application/json'))).status).toBe(
      400,
    );
    expect((await conform(api().post('/agents', [1, 2]))).body.details).toHaveProperty('request');
    expect((await conform(api().patch(`/agents/${id}`, {}))).status).toBe(400);
    expect((await conform(api().put(`/agents/${id}`, { tool: 'unknown' }))).status).toBe(400);
    expect((await conform(api().get('/agents?limit=0'))).status).toBe(400);
    expect((await conform(api().get('/agents/%E0%A4%A'))).status).toBe(400);
    expect((await conform(api().delete('/agents/%E0%A4%A'))).status).toBe(400);
    expect((await conform(api().post(`/agents/${id}/run`, { input: 'hi', session_id: 'not ok' }))).status).toBe(400);
    expect((await conform(api().get(`/agents/${id}/sessions?cursor=forged`))).status).toBe(400);
    expect((await conform(api().get(`/agents/${id}/sessions/s?limit=500`))).status).toBe(400);
    expect((await conform(api().delete(`/agents/${id}/sessions/not%20ok`))).status).toBe(404);

    for (const req of [
      as(null).get('/agents'),
      as('wrong-key').post('/agents', agentBody),
      as(null).get(`/agents/${id}/sessions`),
      as(null).get('/nowhere'),
    ]) {
      expect((await conform(req)).status).toBe(401);
    }
    for (const req of [
      as(READER).post('/agents', agentBody),
      as(READER).patch(`/agents/${id}`, { name: 'x' }),
      as(READER).put(`/agents/${id}`, { name: 'x' }),
      as(READER).delete(`/agents/${id}`),
      as(READER).post(`/agents/${id}/run`, { input: 'hi' }),
      as(READER).delete(`/agents/${id}/sessions/s`),
    ]) {
      expect((await conform(req)).status).toBe(403);
    }
    for (const req of [
      as(READER).get('/agents'),
      as(READER).get(`/agents/${id}`),
      as(READER).get(`/agents/${id}/sessions`),
    ])
      expect((await conform(req)).status).toBe(200);

    expect((await conform(api().get('/nowhere'))).status).toBe(404);
    for (const req of [
      api().delete('/agents'),
      api().post(`/agents/${id}`, agentBody),
      api().get(`/agents/${id}/run`),
      api().delete(`/agents/${id}/sessions`),
      api().put(`/agents/${id}/sessions/s`, {}),
    ]) {
      expect((await conform(req)).status).toBe(405);
    }

    const big = { ...agentBody, instruction: 'x'.repeat(5000) };
    for (const req of [
      api().post('/agents', big),
      api().patch(`/agents/${id}`, big),
      api().put(`/agents/${id}`, big),
      api().post(`/agents/${id}/run`, { input: 'x'.repeat(5000) }),
    ]) {
      expect((await conform(req)).status).toBe(413);
    }
    for (const req of [
      api().post('/agents', 'name=x').set('content-type', 'application/x-www-form-urlencoded'),
      api().patch(`/agents/${id}`, {}).set('content-type', 'text/plain').send('hi'),
      api().put(`/agents/${id}`, {}).set('content-type', 'text/plain').send('hi'),
      api().post(`/agents/${id}/run`, 'hi').set('content-type', 'text/plain'),
    ]) {
      expect((await conform(req)).status).toBe(415);
    }
  });
});

describe('every response matches the document: busy sessions and Idempotency-Key', () => {
  beforeEach(setUpApp);

  test('a run of a busy session is 409, and the run that held it still succeeds', async () => {
    const id = await createAgent({ ...agentBody, model: 'slow' });
    const holding = conform(api().post(`/agents/${id}/run`, { input: 'first', session_id: 'busy' }));
    await gate.entered;
    expect((await conform(api().post(`/agents/${id}/run`, { input: 'second', session_id: 'busy' }))).status).toBe(409);
    expect((await conform(api().delete(`/agents/${id}/sessions/busy`))).status).toBe(409);
    gate.open();
    expect((await holding).body.data.output).toBe('Finally.');
  });

  test('Idempotency-Key: a replay, 422 for another body, 409 while the first runs, 400 for a bad key', async () => {
    const first = await conform(api().post('/agents', agentBody).set('idempotency-key', 'create-1'));
    const again = await conform(api().post('/agents', agentBody).set('idempotency-key', 'create-1'));
    expect([again.status, again.headers['idempotent-replayed'], again.body]).toStrictEqual([200, 'true', first.body]);
    expect(
      (
        await conform(
          api()
            .post('/agents', { ...agentBody, name: 'Other' })
            .set('idempotency-key', 'create-1'),
        )
      ).status,
    ).toBe(422);
    expect(
      (await conform(api().post('/agents', agentBody).set('idempotency-key', 'bad key'))).body.details,
    ).toHaveProperty(['Idempotency-Key']);
    const id = first.body.data.agent_id as string;
    expect(
      (await conform(api().post(`/agents/${id}/run`, { input: 'hi', stream: true }).set('idempotency-key', 'run-0')))
        .status,
    ).toBe(400);
    const ran = await conform(api().post(`/agents/${id}/run`, { input: 'hi' }).set('idempotency-key', 'run-1'));
    expect(
      (await conform(api().post(`/agents/${id}/run`, { input: 'hi' }).set('idempotency-key', 'run-1'))).body,
    ).toStrictEqual(ran.body);
    expect(
      (await conform(api().post(`/agents/${id}/run`, { input: 'other' }).set('idempotency-key', 'run-1'))).status,
    ).toBe(422);

    const slow = await createAgent({ ...agentBody, model: 'slow' });
    const holding = conform(api().post(`/agents/${slow}/run`, { input: 'first' }).set('idempotency-key', 'run-2'));
    await gate.entered;
    expect(
      (await conform(api().post(`/agents/${slow}/run`, { input: 'first' }).set('idempotency-key', 'run-2'))).status,
    ).toBe(409);
    gate.open();
    expect((await holding).status).toBe(200);
  });
});

describe('every response matches the document: rate limits and server errors', () => {
  beforeEach(setUpApp);

  test('rate limits: 429 with Retry-After and RateLimit headers, per key and on failed authentication', async () => {
    const limited = express();
    limited.use(
      '/api/v1',
      createAgentRouter(service, {
        resolveKey: staticKeys([{ account: 'acme', key: KEY }]),
        rateLimit: { perKey: { limit: 2, windowMs: 60_000 }, failedAuth: { limit: 1, windowMs: 60_000 } },
        logger: { error: () => {} },
      }),
    );
    const user = as(KEY, limited);
    for (const status of [200, 200, 429]) expect((await conform(user.get('/agents'))).status).toBe(status);
    const refused = await conform(user.post('/agents', agentBody));
    expect([refused.status, refused.headers['retry-after'], refused.headers.ratelimit]).toStrictEqual([
      429,
      expect.stringMatching(/^\d+$/),
      expect.stringContaining('remaining=0'),
    ]);
    expect((await conform(as('wrong-key', limited).get('/agents'))).status).toBe(401);
    for (const req of [as('wrong-key', limited).get('/agents'), as(null, limited).get('/nowhere')])
      expect((await conform(req)).status).toBe(429);
  });

  test('server errors: 500, 502, 503 with Retry-After, 504', async () => {
    const failing = await createAgent({ ...agentBody, model: 'failing' });
    const hanging = await createAgent({ ...agentBody, model: 'hanging' });
    expect((await conform(api().post(`/agents/${failing}/run`, { input: 'x' }))).status).toBe(502);
    expect((await conform(api().post(`/agents/${hanging}/run`, { input: 'x' }))).status).toBe(504);
    vi.spyOn(service, 'listAgents').mockRejectedValueOnce(new Error('a bug'));
    expect((await conform(api().get('/agents'))).body).toStrictEqual({
      success: false,
      error: 'Internal server error',
      code: 'internal',
      status: 500,
    });
    vi.spyOn(service, 'getAgent').mockRejectedValueOnce(
      new StorageUnavailableError({ message: 'Storage is unavailable; retry later', cause: new Error('down') }),
    );
    const down = await conform(api().get(`/agents/${failing}`));
    expect([down.status, down.headers['retry-after']]).toStrictEqual([503, '2']);
  });
});

describe('every response matches the document: coverage', () => {
  // Runs last, over what the tests above saw: every operation answered 200, and every status of the
  // document was seen and checked.
  test('together, the tests above saw every operation succeed and every status', () => {
    const ok = Object.keys(OPERATIONS).map((operation) => `${operation} 200`);
    const statuses = new Set([...seen].map((s) => Number(s.split(' ').at(-1))));
    expect(ok.filter((s) => !seen.has(s))).toStrictEqual([]);
    // Every status some route of the table may answer, and the 405 of a method no route takes.
    const listed = new Set([...ROUTES.flatMap((route) => route.statuses), 405]);
    expect([...listed].filter((s) => !statuses.has(s)).sort()).toStrictEqual([]);
    expect([...listed].sort()).toStrictEqual([
      200, 202, 400, 401, 403, 404, 405, 409, 413, 415, 422, 429, 500, 502, 503, 504,
    ]);
  });
});
