import { gzipSync } from 'node:zlib';
import { AgentService, echoModels } from '@agenthost/core';
import { MemoryStore } from '@agenthost/storage';
import express from 'express';
import fc from 'fast-check';
import inject from 'light-my-request';
import { describe, expect, test } from 'vitest';
import { staticKeys } from './auth.js';
import { type HttpErrorCode, STATUS_BY_CODE } from './error-codes.js';
import { openApiDocument } from './openapi.js';
import { checkHttpResponse } from './openapi-conformance.js';
import { createAgentRouter } from './router.js';
import { ROUTES as HTTP_ROUTES } from './routes.js';

// Every route gets RUNS_PER_ROUTE generated requests (body, headers, query and path ids all drawn at
// once). Whatever comes in, the answer must be a well-formed envelope (or, for a streamed run, a
// well-formed event stream), never a 5xx, and never show a stack trace or a file path. Requests are
// injected into the Express app in-process, without sockets. Fixed seed, printed; set FC_SEED to
// explore others and FUZZ_RUNS to change the count.
const SEED = Number(process.env.FC_SEED ?? 20261122);
const RUNS_PER_ROUTE = Number(process.env.FUZZ_RUNS ?? 10_000);

const KEY_A = 'key-fuzz-alpha-0123456789abcdef';
const KEY_B = 'key-fuzz-beta-0123456789abcdef';
/** A key of alpha's that may only read, so that writes answer 403. */
const KEY_READ = 'key-fuzz-alpha-read-0123456789abcdef';
// Large enough for the longest json_format text (32 768 characters), small enough to keep near-limit bodies cheap.
const BODY_LIMIT = '64kb';
const BODY_LIMIT_BYTES = 64 * 1024;
const FIXTURE_SESSION = 'fixture-session';
const JSON_TYPE = 'application/json; charset=utf-8';
const SSE_TYPE = 'text/event-stream; charset=utf-8';
const SSE_EVENTS = new Set(['text-delta', 'tool-call', 'tool-result', 'tool-error', 'done', 'error', 'run']);
/** The AI SDK's UI message stream, as the chat route sends it. */
const UI_STREAM_TYPE = 'text/event-stream';
const UI_CHUNKS = new Set(['start', 'text-start', 'text-delta', 'text-end', 'finish', 'error']);

// ---------------------------------------------------------------------------------------------
// Building blocks

/** Any UTF-16 code unit, NUL and lone surrogates included. */
const anyUnitString = (maxLength: number) =>
  fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), maxLength });
const specialStrings = fc.constantFrom(
  '',
  ' ',
  '\t\n',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udc00y',
  '\udbff\udfff',
  '\ufeff',
  '\u2028',
  'é',
  '😀😀😀',
  'None',
  'none',
  'null',
  'echo',
  ' echo ',
  'ECHO',
  '__proto__',
  'constructor',
  'a'.repeat(129),
  'a'.repeat(201),
);
const text = (maxLength: number) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.string({ maxLength }) },
    { weight: 2, arbitrary: specialStrings },
    { weight: 1, arbitrary: anyUnitString(maxLength) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength }) },
  );
/** A field value: usually of the right kind, sometimes anything at all. */
const fieldValue = (good: fc.Arbitrary<unknown>) =>
  fc.oneof(
    { weight: 6, arbitrary: good },
    { weight: 2, arbitrary: fc.anything({ maxDepth: 2 }) },
    { weight: 1, arbitrary: fc.constantFrom(null, 0, -1, true, [], {}) },
  );
const latin1 = (maxLength: number) =>
  fc.string({
    unit: fc
      .integer({ min: 0x20, max: 0xff })
      .filter((c) => c !== 0x7f)
      .map((c) => String.fromCharCode(c)),
    maxLength,
  });

// ---------------------------------------------------------------------------------------------
// Bodies

interface Body {
  /** What sort of body it is, for reading a counterexample. */
  kind: string;
  payload?: string | Buffer;
  /** The content-encoding this body needs (gzip), over the one the headers drew. */
  contentEncoding?: string;
}

const createShape = fc.record(
  {
    name: fieldValue(text(30)),
    instruction: fieldValue(text(60)),
    model: fieldValue(fc.oneof(fc.constantFrom('echo', ' echo ', 'gpt-4o'), text(10))),
    tool: fieldValue(fc.oneof(fc.constantFrom(null, 'none', 'None', '', 'calculator'), text(10))),
    component: fieldValue(text(20)),
    tools: fieldValue(fc.array(fc.oneof(fc.constantFrom('calculator', 'none', '', 'calculator '), text(10)))),
    require_approval: fieldValue(fc.array(fc.oneof(fc.constantFrom('calculator', 'add'), text(10)))),
    temperature: fieldValue(fc.oneof(fc.double(), fc.constantFrom(0, 2, 2.0001, -0))),
    top_p: fieldValue(fc.oneof(fc.double(), fc.constantFrom(0, 1, 1.5))),
    max_output_tokens: fieldValue(fc.oneof(fc.integer(), fc.constantFrom(1, 4096, 4097, 1e308, 0.5))),
    fallback_models: fieldValue(fc.array(fc.oneof(fc.constantFrom('echo', 'gpt-4o'), text(10)), { maxLength: 5 })),
    metadata: fieldValue(
      fc.dictionary(fc.oneof(fc.constantFrom('team', 'a'.repeat(65), '__proto__', 'a b'), text(8)), text(20), {
        maxKeys: 18,
      }),
    ),
    agent_id: fieldValue(text(20)),
    created_at: fieldValue(text(20)),
    version: fieldValue(fc.integer()),
  },
  { requiredKeys: [] },
);
const validCreate = fc.record(
  {
    name: fc.constantFrom('Support', ' x '),
    instruction: fc.constantFrom('Be brief.', 'x'),
    model: fc.constant('echo'),
    tools: fc.constantFrom([], null),
    require_approval: fc.constantFrom([], null),
    temperature: fc.constantFrom(0, 1.5, 2, null),
    top_p: fc.constantFrom(0, 0.9, 1, null),
    max_output_tokens: fc.constantFrom(1, 256, null),
    fallback_models: fc.constantFrom([], null),
    metadata: fc.constantFrom({}, { team: 'support' }, { 'a.b:c-d_e': 'x'.repeat(512) }, null),
  },
  { requiredKeys: ['name', 'instruction', 'model'] },
);
const updateShape = fc.oneof(
  createShape,
  fc.record({ config: fieldValue(createShape), name: fieldValue(text(20)), agent_id: text(10) }, { requiredKeys: [] }),
);
const schemas = fc.constantFrom<unknown>(
  {
    type: 'object',
    properties: { answer: { type: 'string' }, n: { type: 'integer', minimum: 2 } },
    required: ['answer'],
  },
  { type: 'string' },
  { type: 'array', items: { type: 'number' }, minItems: 2 },
  { enum: ['x', 'y'] },
  { const: 5 },
  { anyOf: [{ type: 'string' }, { type: 'null' }] },
  {},
  { type: 'string', pattern: '^a+$' },
  { $ref: '#/definitions/missing' },
  { type: 5 },
  { type: 'object', properties: { a: { $ref: '#' } } },
  '{"type":"string"}',
  '{"type":',
  'not json',
  '[]',
  '"string"',
  [],
  'x'.repeat(40_000),
);
/** How often generated schema texts repeat their nesting (the server cuts texts at 32 768 characters). */
const JSON_FORMAT_TEXT_MAX_DEPTH = 3000;
const nested = (open: string, close: string, depth: number, leaf = '{}') =>
  open.repeat(depth) + leaf + close.repeat(depth);
/** Schemas nested many levels deep, as JSON text or (refused by the body's depth limit past 64) as objects. */
const deepSchemas = fc
  .record({
    // Each satisfiable at any depth (a single `not` would not be), so the echo model can always answer.
    pair: fc.constantFrom<[string, string]>(
      ['{"not":{"not":', '}}'],
      ['{"items":', '}'],
      ['{"type":"object","properties":{"a":', '}}'],
      ['{"anyOf":[', ']}'],
      ['{"allOf":[{},', ']}'],
      ['{"additionalProperties":', '}'],
    ),
    depth: fc.integer({ min: 1, max: JSON_FORMAT_TEXT_MAX_DEPTH }),
    asText: fc.boolean(),
  })
  .map(({ pair, depth, asText }) =>
    asText ? nested(pair[0], pair[1], depth) : (JSON.parse(nested(pair[0], pair[1], 1 + (depth % 100))) as unknown),
  );
const runShape = fc.record(
  {
    input: fieldValue(text(20)),
    input_data: fieldValue(text(20)),
    session_id: fieldValue(
      fc.oneof(fc.constantFrom(FIXTURE_SESSION, 'fresh-1', 'a:b.c_d-e', 'bad id', '', 'x'.repeat(129)), text(12)),
    ),
    json_mode: fieldValue(fc.boolean()),
    json_format: fieldValue(fc.oneof(schemas, deepSchemas, fc.anything({ maxDepth: 3 }))),
    stream: fieldValue(fc.boolean()),
    version: fieldValue(fc.oneof(fc.constantFrom(1, 2, 3, 0, -1, 1.5, 2 ** 53), fc.integer())),
    background: fieldValue(fc.boolean()),
  },
  { requiredKeys: [] },
);
/** Schemas the echo model can satisfy. */
const satisfiable = fc.constantFrom<unknown>(
  {
    type: 'object',
    properties: { answer: { type: 'string' }, n: { type: 'integer', minimum: 2 } },
    required: ['answer'],
  },
  { type: 'array', items: { type: 'number' }, minItems: 2 },
  { enum: ['x', 'y'] },
  { type: 'boolean' },
  '{"type":"string"}',
);
const validRun = fc.record(
  {
    input: fc.oneof(
      fc.constantFrom('hi', 'Hello there'),
      fc.string({ minLength: 1, maxLength: 12 }).filter((t) => t.trim() !== ''),
    ),
    session_id: fc.constantFrom(FIXTURE_SESSION, 'fresh-2', null),
    stream: fc.boolean(),
    json_mode: fc.boolean(),
    json_format: satisfiable,
    background: fc.boolean(),
  },
  { requiredKeys: ['input'] },
);

/** Answers to approvals: none is pending in the fixture, so a valid one is a 404. */
const approvalShape = fc.record(
  {
    approve: fieldValue(fc.boolean()),
    reason: fieldValue(fc.oneof(text(20), fc.constant('x'.repeat(2001)))),
    stream: fieldValue(fc.boolean()),
  },
  { requiredKeys: [] },
);
const validApproval = fc.record(
  { approve: fc.boolean(), reason: fc.constantFrom('ok', 'not now'), stream: fc.boolean() },
  { requiredKeys: ['approve'] },
);

/** The two chat shapes: AI SDK messages (with parts) and truffle-ai messages (with content). */
const chatRole = fc.oneof(fc.constantFrom('user', 'assistant', 'system'), text(8));
const uiMessage = fc.record(
  {
    id: fieldValue(text(8)),
    role: fieldValue(chatRole),
    parts: fieldValue(
      fc.array(fc.record({ type: fieldValue(fc.constantFrom('text', 'file', 'x')), text: fieldValue(text(20)) })),
    ),
  },
  { requiredKeys: [] },
);
const truffleMessage = fc.record({ role: fieldValue(chatRole), content: fieldValue(text(20)) }, { requiredKeys: [] });
const chatShape = fc.record(
  {
    id: fieldValue(text(8)),
    messages: fieldValue(fc.oneof(fc.array(uiMessage, { maxLength: 3 }), fc.array(truffleMessage, { maxLength: 3 }))),
    trigger: fieldValue(fc.constantFrom('submit-message', 'regenerate-message')),
    session_id: fieldValue(fc.constantFrom(FIXTURE_SESSION, 'fresh-1', 'bad id', '', 'x'.repeat(129))),
    background: fieldValue(fc.boolean()),
  },
  { requiredKeys: [] },
);
/** The AI SDK's follow-up after approvals: the assistant's tool parts answered on the client. */
const respondedPart = fc.record(
  {
    type: fieldValue(fc.constantFrom('tool-add', 'dynamic-tool', 'tool-')),
    toolCallId: fieldValue(fc.oneof(text(8), fc.constant('x'.repeat(257)))),
    state: fieldValue(fc.constantFrom('approval-responded', 'approval-requested', 'output-available')),
    approval: fieldValue(
      fc.record(
        {
          id: fieldValue(fc.oneof(text(8), fc.constant(''))),
          approved: fieldValue(fc.boolean()),
          reason: fieldValue(fc.oneof(text(20), fc.constant('x'.repeat(2001)))),
        },
        { requiredKeys: [] },
      ),
    ),
  },
  { requiredKeys: [] },
);
const approvalFollowUp = fc.record(
  {
    messages: fieldValue(
      fc.tuple(
        uiMessage,
        fc.record({ role: fc.constant('assistant'), parts: fc.array(respondedPart, { maxLength: 3 }) }),
      ),
    ),
    session_id: fieldValue(fc.constantFrom(FIXTURE_SESSION, 'fresh-1', 'bad id', '', 'x'.repeat(129))),
  },
  { requiredKeys: [] },
);
const chatText = fc.constantFrom('hi', 'Hello there');
const validChat = fc.oneof(
  fc.record({
    id: fc.constant('chat-1'),
    messages: chatText.map((t) => [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: t }] }]),
    session_id: fc.constantFrom(FIXTURE_SESSION, 'fresh-3', null),
    background: fc.boolean(),
  }),
  fc.record({
    messages: chatText.map((t) => [
      { role: 'user', content: 'earlier' },
      { role: 'assistant', content: 'ok' },
      { role: 'user', content: t },
    ]),
    session_id: fc.constantFrom(FIXTURE_SESSION, null),
    background: fc.boolean(),
  }),
);

const json =
  (kind: string) =>
  (value: unknown): Body => {
    const payload = JSON.stringify(value);
    return payload === undefined ? { kind: 'none' } : { kind, payload };
  };

const malformed: fc.Arbitrary<Body> = fc
  .oneof(
    fc.constantFrom(
      '{"name": "x",}',
      "{'name': 'x'}",
      '{',
      '}',
      '[',
      'NaN',
      'undefined',
      '{"a":1}{"b":2}',
      '\ufeff{"a":1}',
      '{"a":"\\x"}',
      '{"a":tru}',
      '{"__proto__":',
      '"unterminated',
      '1e999',
      '-',
      '{"a":1e99999}',
      '\u0000',
      ' ',
      'null',
      'true',
      '42',
      '"just a string"',
      '[1,2,3]',
    ),
    fc.string({ maxLength: 40 }),
    anyUnitString(40),
    // A valid body cut short.
    fc.tuple(createShape, fc.nat()).map(([obj, cut]) => {
      const s = JSON.stringify(obj);
      return s.slice(0, s.length > 1 ? cut % (s.length - 1) : 0);
    }),
  )
  .map((payload) => ({ kind: 'malformed', payload }));

/** A body whose size is within a few hundred bytes of the limit, on either side, in 1-4 byte characters. */
const nearLimit = (fields: readonly string[]): fc.Arbitrary<Body> =>
  fc
    .record({
      field: fc.constantFrom(...fields),
      delta: fc.integer({ min: -300, max: 300 }),
      fill: fc.constantFrom('x', 'é', '日', '😀', '\\u0000', '\\ud800', ' '),
    })
    .map(({ field, delta, fill }) => {
      const head = `{"${field}":"`;
      const tail = '"}';
      const bytesPerFill = Buffer.byteLength(fill);
      const count = Math.max(0, Math.floor((BODY_LIMIT_BYTES + delta - head.length - tail.length) / bytesPerFill));
      return { kind: `near-limit(${delta >= 0 ? 'over' : 'under'})`, payload: head + fill.repeat(count) + tail };
    });

/** Nested objects or arrays, thousands deep, as the body or as one of its fields. */
const deep = (fields: readonly string[]): fc.Arbitrary<Body> =>
  fc
    .record({
      field: fc.constantFrom(null, ...fields),
      depth: fc.integer({ min: 1, max: 5000 }),
      shape: fc.constantFrom('object', 'array', 'mixed'),
    })
    .map(({ field, depth, shape }) => {
      const open = shape === 'object' ? '{"a":' : shape === 'array' ? '[' : '[{"a":';
      const close = shape === 'object' ? '}' : shape === 'array' ? ']' : '}]';
      const nested = `${open.repeat(depth)}1${close.repeat(depth)}`;
      return { kind: 'deep', payload: field === null ? nested : `{"${field}":${nested}}` };
    });

/** Prototype-pollution keys around an otherwise plausible body. */
const pollution = (shape: fc.Arbitrary<unknown>): fc.Arbitrary<Body> =>
  fc
    .record({
      base: shape,
      where: fc.constantFrom('__proto__', 'constructor', 'prototype', 'config'),
      value: fc.constantFrom(
        '{"polluted":"yes"}',
        '{"prototype":{"polluted":"yes"}}',
        '{"__proto__":{"polluted":"yes"}}',
        '"x"',
        'null',
      ),
    })
    .map(({ base, where, value }) => {
      const inner = JSON.stringify(base ?? {});
      const rest = inner.startsWith('{') && inner !== '{}' ? `,${inner.slice(1)}` : '}';
      return { kind: 'pollution', payload: `{"${where}":${value}${rest}` };
    });

/** Bytes that are not UTF-8, or UTF-8 of a lone surrogate. */
const rawBytes: fc.Arbitrary<Body> = fc
  .oneof(
    fc.uint8Array({ maxLength: 40 }).map((bytes) => Buffer.from(bytes)),
    fc.constantFrom(
      Buffer.from([0x7b, 0x22, 0x6e, 0x61, 0x6d, 0x65, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d]),
      Buffer.from([0xff, 0xfe, 0x7b, 0x00, 0x7d, 0x00]),
      Buffer.from('{"name":"\xc3\x28"}', 'latin1'),
    ),
  )
  .map((payload) => ({ kind: 'raw-bytes', payload }));

/** A gzip-compressed body with its content-encoding, including one that inflates past the limit. */
const gzipped = (shape: fc.Arbitrary<unknown>): fc.Arbitrary<Body> =>
  fc.oneof(
    shape.map((obj) => ({ kind: 'gzip', payload: gzipSync(JSON.stringify(obj ?? {})), contentEncoding: 'gzip' })),
    fc.constant({
      kind: 'gzip-bomb',
      payload: gzipSync(`{"name":"${'x'.repeat(BODY_LIMIT_BYTES * 4)}"}`),
      contentEncoding: 'gzip',
    }),
    fc.constant({ kind: 'gzip-garbage', payload: 'not gzip at all', contentEncoding: 'gzip' }),
  );

function bodies(
  shape: fc.Arbitrary<unknown>,
  valid: fc.Arbitrary<unknown>,
  fields: readonly string[],
  validWeight = 3,
): fc.Arbitrary<Body> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.constant<Body>({ kind: 'none' }) },
    { weight: validWeight, arbitrary: valid.map(json('valid')) },
    { weight: 8, arbitrary: shape.map(json('shaped')) },
    { weight: 2, arbitrary: fc.anything({ maxDepth: 3 }).map(json('anything')) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map(json('json-value')) },
    { weight: 2, arbitrary: malformed },
    { weight: 1, arbitrary: nearLimit(fields) },
    { weight: 1, arbitrary: deep(fields) },
    { weight: 1, arbitrary: pollution(shape) },
    { weight: 1, arbitrary: rawBytes },
    { weight: 1, arbitrary: gzipped(shape) },
  );
}
const noShape = fc.anything({ maxDepth: 2 });

// ---------------------------------------------------------------------------------------------
// Headers, query strings and path ids

const apiKey = fc.oneof(
  { weight: 6, arbitrary: fc.constant(KEY_A) },
  { weight: 2, arbitrary: fc.constant(KEY_B) },
  { weight: 1, arbitrary: fc.constant(KEY_READ) },
  { weight: 1, arbitrary: fc.constant(undefined) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '',
      ' ',
      `${KEY_A} `,
      ` ${KEY_A}`,
      KEY_A.toUpperCase(),
      KEY_A.slice(0, -1),
      `${KEY_A}x`,
      'null',
      'undefined',
      [KEY_A, KEY_B],
      'k'.repeat(8000),
    ),
  },
  { weight: 1, arbitrary: latin1(40) },
);
const contentType = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom('application/json', 'application/json; charset=utf-8') },
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      undefined,
      'application/json; charset=UTF-8',
      'application/json;charset="utf-8"',
      'application/json; charset=latin1',
      'application/json; charset=utf-16',
      'application/json; charset=utf-16le',
      'application/json; charset=utf-99',
      'application/json; foo',
      'application/vnd.api+json',
      'application/merge-patch+json',
      'application/problem+json; charset=utf-8',
      'APPLICATION/JSON',
      'text/plain',
      'text/json',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/xml',
      '*/*',
      'application/*',
      'application',
      '',
      ';',
      'application/json, text/plain',
    ),
  },
  { weight: 1, arbitrary: latin1(30) },
);
const accept = fc.oneof(
  { weight: 4, arbitrary: fc.constant(undefined) },
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      'application/json',
      'text/event-stream',
      '*/*',
      'text/html',
      'application/json, text/event-stream',
      'text/event-stream;q=0.5, application/json',
      'text/event-stream, application/json;q=0.1',
      'image/png',
      '',
      ',,,',
      'text/*',
      '*/*;q=0',
    ),
  },
  { weight: 1, arbitrary: latin1(30) },
);
const contentEncoding = fc.oneof(
  { weight: 20, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.constantFrom('identity', 'gzip', 'deflate', 'br', 'x-junk', 'gzip, gzip', 'IDENTITY') },
);
const idempotencyKey = fc.oneof(
  { weight: 8, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.constantFrom('k1', 'k2', '', ' ', 'é', 'x'.repeat(256), 'a\tb') },
  { weight: 1, arbitrary: latin1(20) },
);
const requestId = fc.oneof(
  { weight: 5, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.oneof(fc.constantFrom('req-1', 'x'.repeat(129), 'a b'), latin1(20)) },
);
const headerName = fc
  .stringMatching(/^[a-z][a-z0-9-]{0,15}$/)
  .filter(
    (n) =>
      ![
        'content-length',
        'transfer-encoding',
        'host',
        'content-type',
        'content-encoding',
        'x-api-key',
        'accept',
        'idempotency-key',
      ].includes(n),
  );
const headers = fc.record({
  key: apiKey,
  contentType,
  accept,
  contentEncoding,
  requestId,
  idempotencyKey,
  extra: fc.dictionary(headerName, latin1(30), { maxKeys: 3 }),
});
type Headers = typeof headers extends fc.Arbitrary<infer H> ? H : never;

const percentJunk = fc.constantFrom(
  '%',
  '%%',
  '%zz',
  '%E0%A4%A',
  '%ED%A0%80',
  '%00',
  '%2F',
  'a%2Fb',
  '%C0%AF',
  '%F0%9F%98',
  '%FF',
  '%2e',
  '.',
  '..',
  ';',
  'a;b',
  '%20',
  '+',
  '~',
  '%5Cx',
  'é',
  '😀',
);
const queryKey = fc.oneof(
  fc.constantFrom(
    'limit',
    'cursor',
    'after',
    'order',
    'pretty',
    '__proto__',
    'constructor',
    'hasOwnProperty',
    'limit[]',
    'limit[a]',
    '',
  ),
  fc.stringMatching(/^[a-z_]{1,8}$/),
);
const queryValue = fc.oneof(
  fc.constantFrom(
    '1',
    '0',
    '20',
    '100',
    '101',
    '-1',
    '1.5',
    '1e3',
    '0x10',
    '00001',
    '9999999',
    'abc',
    '',
    'true',
    'asc',
    'desc',
    'ASC',
    'sideways',
  ),
  fc.constantFrom(
    'cDA',
    'cDU',
    'cDk5OTk5OTk5OTk5OTk5OTk',
    'cC0x',
    'p0',
    'AAAA',
    '====',
    '%',
    '%zz',
    '%00',
    '%ED%A0%80',
    '%2B',
    'a%26b%3Dc',
  ),
  fc.string({ maxLength: 12 }).map(encodeURIComponent),
  fc.constant(null),
);
const query = fc.oneof(
  { weight: 3, arbitrary: fc.constant('') },
  {
    weight: 6,
    arbitrary: fc
      .array(fc.tuple(queryKey, queryValue), { minLength: 1, maxLength: 4 })
      .map((pairs) => `?${pairs.map(([k, v]) => (v === null ? k : `${k}=${v}`)).join('&')}`),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom('?', '?&&', '?=', '?==&=', '?pretty=true', '?limit=1&limit=2', '?order=asc&order=desc'),
  },
);

/** `own`: the agent of the account whose key is sent (alpha's for an unknown key); `alpha`, `beta`: that account's, whoever asks. */
type IdRef = { kind: 'own' | 'alpha' | 'beta' | 'deleted' } | { kind: 'raw'; segment: string };
const madeUpId = fc.stringMatching(/^[A-Za-z0-9_-]{22}$/).map((s) => `agt_${s}`);
const agentRef: fc.Arbitrary<IdRef> = fc.oneof(
  { weight: 6, arbitrary: fc.constant({ kind: 'own' } as const) },
  { weight: 1, arbitrary: fc.constant({ kind: 'alpha' } as const) },
  { weight: 1, arbitrary: fc.constant({ kind: 'beta' } as const) },
  { weight: 1, arbitrary: fc.constant({ kind: 'deleted' } as const) },
  { weight: 1, arbitrary: madeUpId.map((id) => ({ kind: 'raw', segment: id }) as const) },
  {
    weight: 1,
    arbitrary: fc
      .oneof(
        percentJunk,
        fc.string({ minLength: 1, maxLength: 20 }).map(encodeURIComponent),
        fc.constantFrom('a'.repeat(129), 'a'.repeat(5000)),
      )
      .map((segment) => ({ kind: 'raw', segment }) as const),
  },
);
const sessionRef: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.constant(FIXTURE_SESSION) },
  { weight: 1, arbitrary: fc.constantFrom('fresh-1', 'a:b.c_d-e', 'x'.repeat(128), 'x'.repeat(129), 'bad%20id') },
  { weight: 1, arbitrary: fc.oneof(percentJunk, fc.string({ minLength: 1, maxLength: 20 }).map(encodeURIComponent)) },
);

// ---------------------------------------------------------------------------------------------
// The routes

/** The fixture's background runs: the asking account's own (alpha's for an unknown key), alpha's and beta's. */
interface RunIds {
  own: string;
  alpha: string;
  beta: string;
}

interface Route {
  name: string;
  method: fc.Arbitrary<string>;
  /** Path under the mount point, from the path ids (and a number to pick one of several). */
  path: (agent: string, session: string, pick: number, runs: RunIds) => string;
  body: fc.Arbitrary<Body>;
  /** Headers of the route's own, from the number that picks. */
  headers?: (pick: number) => Record<string, string>;
}

const getBodies = bodies(noShape, fc.constant({}), ['name', 'input']);
/**
 * A version in a path: mostly ones the fixture's agents have (1 and 2), else ones they never had and
 * numbers written oddly (each a 404, never a 400 or a 5xx).
 */
const VERSION_SEGMENTS = [
  '1',
  '2',
  '1',
  '2',
  '3',
  '0',
  '-1',
  '01',
  '1.0',
  '1e0',
  '%201',
  '0x1',
  '999999999',
  '1000000000',
  '99999999999999999999999',
  'latest',
  '%00',
  'a%2Fb',
  'x'.repeat(300),
];
const versionSegment = (pick: number) => VERSION_SEGMENTS[pick % VERSION_SEGMENTS.length]!;
/** A run id in a path: mostly the asker's own run, else another account's, one that never was, or junk. */
const runSegment = (pick: number, runs: RunIds) =>
  [
    runs.own,
    runs.own,
    runs.own,
    runs.own,
    runs.alpha,
    runs.beta,
    'run_AAAAAAAAAAAAAAAAAAAAAA',
    '%00',
    'a%2Fb',
    '%ED%A0%80',
    'x'.repeat(300),
    '__proto__',
  ][pick % 12]!;
/** A `Last-Event-ID`: mostly none or a good one, else anything a client could send (each a 400, never a 5xx). */
const LAST_EVENT_IDS = [
  undefined,
  undefined,
  undefined,
  '0',
  '1',
  '2',
  '3',
  '99',
  '-1',
  '1.5',
  '',
  'abc',
  '01',
  '1e3',
  '0x1',
  '9007199254740991',
  '9007199254740992',
  '99999999999999999999',
];
const lastEventIdHeader = (pick: number): Record<string, string> => {
  const value = LAST_EVENT_IDS[Math.floor(pick / 12) % LAST_EVENT_IDS.length];
  return value === undefined ? {} : { 'last-event-id': value };
};
const ROUTES: Route[] = [
  {
    name: 'POST /agents',
    method: fc.constant('POST'),
    path: () => '/agents',
    body: bodies(createShape, validCreate, ['name', 'instruction', 'component', 'model']),
  },
  { name: 'GET /agents', method: fc.constant('GET'), path: () => '/agents', body: getBodies },
  { name: 'GET /agents/{agentId}', method: fc.constant('GET'), path: (a) => `/agents/${a}`, body: getBodies },
  {
    name: 'PATCH /agents/{agentId}',
    method: fc.constant('PATCH'),
    path: (a) => `/agents/${a}`,
    body: bodies(updateShape, fc.constant({ name: 'Renamed' }), ['name', 'instruction', 'config']),
  },
  {
    name: 'PUT /agents/{agentId}',
    method: fc.constant('PUT'),
    path: (a) => `/agents/${a}`,
    body: bodies(updateShape, validCreate, ['name', 'instruction', 'config']),
  },
  { name: 'DELETE /agents/{agentId}', method: fc.constant('DELETE'), path: (a) => `/agents/${a}`, body: getBodies },
  {
    name: 'POST /agents/{agentId}/run',
    method: fc.constant('POST'),
    path: (a) => `/agents/${a}/run`,
    body: bodies(runShape, validRun, ['input', 'input_data', 'json_format', 'session_id'], 8),
  },
  {
    name: 'POST /agents/{agentId}/chat',
    method: fc.constant('POST'),
    path: (a) => `/agents/${a}/chat`,
    body: bodies(fc.oneof(chatShape, approvalFollowUp), validChat, ['messages', 'session_id'], 8),
  },
  {
    name: 'POST /agents/{agentId}/sessions/{sessionId}/approvals/{approvalId}',
    method: fc.constant('POST'),
    path: (a, s, pick) =>
      `/agents/${a}/sessions/${s}/approvals/${['apr_1', 'x'.repeat(300), '%00', 'a%2Fb'][pick % 4]}`,
    body: bodies(approvalShape, validApproval, ['reason'], 4),
  },
  {
    name: 'GET /agents/{agentId}/sessions',
    method: fc.constant('GET'),
    path: (a) => `/agents/${a}/sessions`,
    body: getBodies,
  },
  {
    name: 'GET /agents/{agentId}/sessions/{sessionId}',
    method: fc.constant('GET'),
    path: (a, s) => `/agents/${a}/sessions/${s}`,
    body: getBodies,
  },
  {
    name: 'DELETE /agents/{agentId}/sessions/{sessionId}',
    method: fc.constant('DELETE'),
    path: (a, s) => `/agents/${a}/sessions/${s}`,
    body: getBodies,
  },
  { name: 'GET /openapi.json', method: fc.constant('GET'), path: () => '/openapi.json', body: getBodies },
  {
    name: 'other methods and unknown paths',
    method: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'PROPFIND', 'QUERY'),
    path: (a, s, pick, runs) => {
      const paths = [
        `/agents/${a}/nope`,
        '/nope',
        '/',
        '',
        '/agents/',
        `/agents/${a}/sessions/${s}/x`,
        '/openapi.json',
        '/agents',
        `/agents/${a}`,
        `/agents/${a}/run`,
        `/agents/${a}/chat`,
        `/agents/${a}/sessions/${s}/approvals`,
        `/agents/${a}/sessions`,
        `/agents/${a}/sessions/${s}`,
        `/AGENTS/${a}`,
        '//agents',
        `/agents/${a}/versions`,
        `/agents/${a}/versions/1`,
        `/agents/${a}/versions/1/restore`,
        `/agents/${a}/versions/1/nope`,
        '/models',
        '/tools',
        `/agents/${a}/runs`,
        `/runs/${runs.own}`,
        `/runs/${runs.own}/events`,
        `/runs/${runs.own}/cancel`,
        '/runs',
        `/runs/${runs.own}/nope`,
      ];
      return paths[pick % paths.length]!;
    },
    body: bodies(noShape, fc.constant({}), ['name']),
  },
  // Added after the others so that their seeds (the base seed plus the route's index) stay the same.
  {
    name: 'GET /agents/{agentId}/versions',
    method: fc.constant('GET'),
    path: (a) => `/agents/${a}/versions`,
    body: getBodies,
  },
  {
    name: 'GET /agents/{agentId}/versions/{version}',
    method: fc.constant('GET'),
    path: (a, _s, pick) => `/agents/${a}/versions/${versionSegment(pick)}`,
    body: getBodies,
  },
  {
    name: 'POST /agents/{agentId}/versions/{version}/restore',
    method: fc.constant('POST'),
    path: (a, _s, pick) => `/agents/${a}/versions/${versionSegment(pick)}/restore`,
    body: getBodies,
  },
  { name: 'GET /models', method: fc.constant('GET'), path: () => '/models', body: getBodies },
  { name: 'GET /tools', method: fc.constant('GET'), path: () => '/tools', body: getBodies },
  {
    name: 'GET /agents/{agentId}/runs',
    method: fc.constant('GET'),
    path: (a) => `/agents/${a}/runs`,
    body: getBodies,
  },
  {
    name: 'GET /runs/{runId}',
    method: fc.constant('GET'),
    path: (_a, _s, pick, runs) => `/runs/${runSegment(pick, runs)}`,
    body: getBodies,
  },
  {
    name: 'GET /runs/{runId}/events',
    method: fc.constant('GET'),
    path: (_a, _s, pick, runs) => `/runs/${runSegment(pick, runs)}/events`,
    body: getBodies,
    headers: lastEventIdHeader,
  },
  {
    name: 'POST /runs/{runId}/cancel',
    method: fc.constant('POST'),
    path: (_a, _s, pick, runs) => `/runs/${runSegment(pick, runs)}/cancel`,
    body: getBodies,
  },
];

interface FuzzRequest {
  method: string;
  pick: number;
  prefix: string;
  agent: IdRef;
  session: string;
  query: string;
  headers: Headers;
  body: Body;
}

const fuzzRequest = (route: Route): fc.Arbitrary<FuzzRequest> =>
  fc.record({
    method: route.method,
    pick: fc.nat(1000),
    prefix: fc.constantFrom('/api/v1', '/api'),
    agent: agentRef,
    session: sessionRef,
    query,
    headers,
    body: route.body,
  });

// ---------------------------------------------------------------------------------------------
// The app under test, with an agent and a session for each of two accounts, kept alive

async function fixture() {
  const store = new MemoryStore();
  const service = new AgentService({ store, models: echoModels(), maxRetries: 0 });
  const logged: { fields: Record<string, unknown>; message: string }[] = [];
  const app = express();
  app.use(
    ['/api/v1', '/api'],
    createAgentRouter(service, {
      resolveKey: staticKeys([
        { account: 'alpha', key: KEY_A },
        { account: 'beta', key: KEY_B },
        { account: 'alpha', key: KEY_READ, scopes: ['agents:read'] },
      ]),
      bodyLimit: BODY_LIMIT,
      logger: { error: (fields, message) => logged.push({ fields, message }) },
    }),
  );
  const ids = { alpha: '', beta: '', deleted: '' };
  const gone = await service.createAgent('alpha', { name: 'Gone', instruction: 'x', model: 'echo' });
  await service.deleteAgent('alpha', gone.agent_id);
  ids.deleted = gone.agent_id;
  /** Recreates what a previous request deleted, so that every request can reach a live agent and session. */
  const ensure = async () => {
    for (const account of ['alpha', 'beta'] as const) {
      if (!ids[account] || !(await store.getAgent(account, ids[account]))) {
        ids[account] = (
          await service.createAgent(account, { name: account, instruction: 'Be brief.', model: 'echo' })
        ).agent_id;
        // A second version, so that the version routes have an earlier one to read and restore.
        await service.updateAgent(account, ids[account], { instruction: 'Be briefer.' });
      }
      if (!(await store.getSession({ accountId: account, agentId: ids[account], sessionId: FIXTURE_SESSION }))) {
        await service.runAgent(account, ids[account], { input: 'hello', session_id: FIXTURE_SESSION });
      }
    }
  };
  await ensure();
  // A finished background run of each account, for the run routes to read (and, uselessly, cancel).
  const runs = { alpha: '', beta: '' };
  for (const account of ['alpha', 'beta'] as const) {
    runs[account] = (await service.startRun(account, ids[account], { input: 'in the background' })).run_id;
    for await (const _ of await service.runEvents(account, runs[account])) {
      // Read to its end: the run has finished.
    }
  }
  return { dispatch: app as unknown as inject.DispatchFunc, ids, runs, ensure, logged };
}

// ---------------------------------------------------------------------------------------------
// What every answer must be

/** A stack frame (`\n    at fn (file:1:2)`), or a source position (`router.ts:12:5`). */
const STACK_FRAME = /(?:\\n|\n) *at \S|\.(?:ts|js|mjs|cjs):\d+:\d+/g;
/** A file path or URL of this machine, a dependency's folder, or a serialised `stack`. */
const FILE_PATH = /file:\/\/|node_modules|\/(?:home|root|usr|tmp|var|opt|srv|app|Users)\/|"stack":/g;
/** Where the project is checked out, which no answer may show. */
const CWD = process.cwd();
const DOCUMENT_PATH = /^\/api(?:\/v1)?\/openapi\.json\/?$/;
const OPENAPI = openApiDocument();

/** Every answer must also be one the OpenAPI document describes for its route and status. */
function conforms(
  method: string,
  url: string,
  res: { statusCode: number; headers: Record<string, unknown>; payload: string },
  body: unknown,
  bad: (m: string) => never,
): void {
  // Match the path as the server routes it: dot segments (`.`, `%2e`) resolved, as the URL standard says.
  const resolved = new URL(url, 'http://localhost');
  const path = resolved.pathname;
  const basePath = path.startsWith('/api/v1') ? '/api/v1' : '/api';
  try {
    checkHttpResponse(
      OPENAPI,
      method,
      path + resolved.search,
      { status: res.statusCode, headers: res.headers as Record<string, string>, body, text: res.payload },
      basePath,
    );
  } catch (error) {
    bad((error as Error).message);
  }
}

class BadAnswer extends Error {}

function fail(message: string, sent: string, res: inject.Response): never {
  throw new BadAnswer(
    `${message}\n  request: ${sent}\n  answer: ${res.statusCode} ${String(res.headers['content-type'])} ${res.payload.slice(0, 600)}`,
  );
}

function checkEnvelope(body: unknown, status: number, bad: (m: string) => never): void {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) bad('the body is not a JSON object');
  const b = body as Record<string, unknown>;
  if (b.status !== status) bad(`envelope status ${String(b.status)} is not the HTTP status ${status}`);
  if (b.success === true) {
    // 202: a background run, accepted.
    if (status !== 200 && status !== 202) bad('success with a status other than 200 or 202');
    const keys = Object.keys(b).sort().join(',');
    // A chat answered as JSON repeats `message` and `session_id` at the top, where the truffle-ai SDK reads them.
    if (keys !== 'data,status,success' && keys !== 'data,message,session_id,status,success')
      bad(`a success envelope with keys ${keys}`);
  } else if (b.success === false) {
    if (status < 400) bad('an error envelope with a status under 400');
    if (typeof b.error !== 'string' || b.error.length === 0) bad('an error envelope without an error message');
    if (STATUS_BY_CODE[b.code as HttpErrorCode] !== status) bad(`code ${String(b.code)} does not stand for ${status}`);
    const extra = Object.keys(b).filter((k) => !['success', 'error', 'code', 'details', 'status'].includes(k));
    if (extra.length > 0) bad(`an error envelope with ${extra.join(', ')}`);
    if ('details' in b) {
      const details = b.details;
      if (
        typeof details !== 'object' ||
        details === null ||
        Array.isArray(details) ||
        Object.keys(details).length === 0
      )
        bad('details that are not a non-empty object');
      for (const issue of Object.values(details as Record<string, unknown>)) {
        const i = issue as { message?: unknown; path?: unknown };
        if (typeof i?.message !== 'string' || !Array.isArray(i.path)) bad('a detail without message and path');
      }
    }
  } else bad('no boolean success');
}

function checkLeaks(textOut: string, sent: string, bad: (m: string) => never): void {
  if (textOut.includes(CWD)) bad('the answer shows a server path');
  for (const pattern of [STACK_FRAME, FILE_PATH]) {
    for (const match of textOut.matchAll(pattern)) {
      // What the client sent may come back (an echoed input, a route in "Route not found"); anything else may not.
      if (!sent.includes(match[0].replace(/^(?:\\n|\n)/, '')))
        bad(`the answer shows a stack trace or a file path: ${JSON.stringify(match[0])}`);
    }
  }
}

/** The frames of an event stream: each `id:` (when it has one), `event:` and JSON `data:`, comments skipped. */
function framesOf(res: inject.Response, bad: (m: string) => never): { id?: number; event: string; data: unknown }[] {
  const blocks = res.payload.split('\n\n');
  if (blocks.pop() !== '') bad('the stream does not end with a blank line');
  return blocks
    .filter((block) => !block.startsWith(':'))
    .map((block) => {
      const m = /^(?:id: (\d+)\n)?event: ([^\n]+)\ndata: ([^\n]*)$/.exec(block);
      if (!m) bad(`a malformed event ${JSON.stringify(block.slice(0, 100))}`);
      if (!SSE_EVENTS.has(m[2]!)) bad(`an unknown event ${m[2]}`);
      let data: unknown;
      try {
        data = JSON.parse(m[3]!);
      } catch {
        bad('an event whose data is not JSON');
      }
      return { ...(m[1] !== undefined && { id: Number(m[1]) }), event: m[2]!, data };
    });
}

/**
 * A run's event stream: a background run's may open with its `run` object (no id); then every event
 * has an id one more than the one before (from 1, except when a run's events are read from a
 * cursor), and exactly one `done` or `error` ends it. Read from a cursor past the last event, a
 * run's events may be none at all.
 */
function checkEvents(res: inject.Response, fromCursor: boolean, bad: (m: string) => never): void {
  const frames = framesOf(res, bad);
  const events = !fromCursor && frames[0]?.event === 'run' && frames[0].id === undefined ? frames.slice(1) : frames;
  for (const [index, event] of events.entries()) {
    if (event.event === 'run') bad('a run event that is not the first of a started run');
    const expected = index === 0 ? (fromCursor ? event.id : 1) : events[index - 1]!.id! + 1;
    if (event.id === undefined || event.id < 1 || event.id !== expected)
      bad(`event ${index} has id ${String(event.id)}, not ${String(expected)}`);
  }
  if (fromCursor && events.length === 0) return;
  const terminal = events.filter((e) => e.event === 'done' || e.event === 'error');
  if (terminal.length !== 1 || events.at(-1) !== terminal[0])
    bad(`the stream does not end with exactly one done or error event (${events.map((e) => e.event).join(', ')})`);
  const last = terminal[0]!;
  if (last.event === 'error') {
    checkEnvelope(last.data, (last.data as { status?: number })?.status ?? -1, bad);
    if ((last.data as { status: number }).status >= 500) bad('a stream ended with a 5xx error');
  } else {
    const d = last.data as { output?: unknown; session_id?: unknown; metadata?: unknown };
    if (typeof d?.output !== 'string' || typeof d.session_id !== 'string' || typeof d.metadata !== 'object')
      bad('a done event without output, session_id and metadata');
  }
}

// ---------------------------------------------------------------------------------------------

const routeSeed = (index: number) => SEED + index;

/** The fixture: the app to dispatch to, its agents, and what it logged. */
type Fixture = Awaited<ReturnType<typeof fixture>>;

/** The URL and headers of one generated request to `route`, aimed at the fixture's agents. */
function requestTarget(
  fx: Fixture,
  route: Route,
  r: FuzzRequest,
): { url: string; h: Record<string, string | string[]> } {
  const owner = r.headers.key === KEY_B ? 'beta' : 'alpha';
  const agent = r.agent.kind === 'raw' ? r.agent.segment : fx.ids[r.agent.kind === 'own' ? owner : r.agent.kind];
  const runs = { own: fx.runs[owner], alpha: fx.runs.alpha, beta: fx.runs.beta };
  const url = r.prefix + route.path(agent, r.session, r.pick, runs) + r.query;
  const h: Record<string, string | string[]> = { ...r.headers.extra, ...route.headers?.(r.pick) };
  if (r.headers.key !== undefined) h['x-api-key'] = r.headers.key;
  if (r.headers.accept !== undefined) h.accept = r.headers.accept;
  if (r.headers.requestId !== undefined) h['x-request-id'] = r.headers.requestId;
  if (r.headers.idempotencyKey !== undefined) h['idempotency-key'] = r.headers.idempotencyKey;
  if (r.body.payload !== undefined) {
    if (r.headers.contentType !== undefined) h['content-type'] = r.headers.contentType;
    const encoding = r.body.contentEncoding ?? r.headers.contentEncoding;
    if (encoding !== undefined) h['content-encoding'] = encoding;
  }
  return { url, h };
}

/** The request as sent, for failure messages: method, URL, headers and the start of the body. */
function describeSent(r: FuzzRequest, url: string, h: Record<string, string | string[]>): string {
  const payloadText =
    r.body.payload === undefined
      ? ''
      : Buffer.isBuffer(r.body.payload)
        ? r.body.payload.toString('latin1')
        : r.body.payload;
  const sent = `${r.method} ${url} ${JSON.stringify(h)} ${payloadText.length > 400 ? `${payloadText.slice(0, 400)}... (${payloadText.length} characters)` : payloadText}`;
  return sent;
}

/** A UI message stream: `data:` lines of known JSON chunks, from `start` to `finish` or `error`, then `[DONE]`. */
function checkUiChunks(payload: string, bad: (message: string) => never): void {
  const data = payload
    .split('\n\n')
    .filter((frame) => frame.startsWith('data: '))
    .map((frame) => frame.slice('data: '.length));
  if (data.at(-1) !== '[DONE]') bad('the UI message stream does not end with [DONE]');
  const chunks = data.slice(0, -1).map((text) => JSON.parse(text) as { type: string });
  if (chunks[0]?.type !== 'start') bad('the UI message stream does not begin with start');
  if (!['finish', 'error'].includes(chunks.at(-1)?.type ?? ''))
    bad('the UI message stream ends with neither finish nor error');
  for (const chunk of chunks) if (!UI_CHUNKS.has(chunk.type)) bad(`an unknown UI message chunk ${chunk.type}`);
}

/**
 * Checks one answer: never a 5xx, a polluted prototype or a missing request id; a JSON envelope (or
 * the OpenAPI document) or a well-formed event stream, as the document describes, leaking nothing.
 * `sent` describes the request for failure messages; `checkedDocuments` holds the OpenAPI document
 * texts already checked in full.
 */
function checkAnswer(
  route: Route,
  r: FuzzRequest,
  url: string,
  sent: string,
  res: inject.Response,
  polluted: string,
  checkedDocuments: Set<string>,
  bad: (message: string) => never,
): void {
  const status = res.statusCode;
  const type = res.headers['content-type'];

  if (status >= 500) bad(`a ${status}`);
  if (
    Object.getOwnPropertyNames(Object.prototype).sort().join(',') !== polluted ||
    ({} as Record<string, unknown>).polluted !== undefined
  )
    bad('Object.prototype was polluted');
  if (typeof res.headers['x-request-id'] !== 'string') bad('no x-request-id');
  if (r.method === 'HEAD' && type !== SSE_TYPE) {
    if (type !== JSON_TYPE) bad(`content-type ${String(type)}`);
    return;
  }
  if (type === SSE_TYPE) {
    const runEvents = /\/runs\/[^/]+\/events$/.test(new URL(url, 'http://localhost').pathname);
    if (status !== 200 || !(route.name.endsWith('/run') || runEvents)) bad('an event stream where none belongs');
    if (r.method === 'HEAD') return;
    checkEvents(res, runEvents, bad);
    checkLeaks(res.payload, sent, bad);
    conforms(r.method, url, res, undefined, bad);
    return;
  }
  if (type === UI_STREAM_TYPE) {
    if (status !== 200 || !route.name.endsWith('/chat')) bad('a UI message stream where none belongs');
    checkUiChunks(res.payload, bad);
    checkLeaks(res.payload, sent, bad);
    return;
  }
  if (type !== JSON_TYPE) bad(`content-type ${String(type)}`);
  // The OpenAPI document is large and always the same: checked in full once per text.
  if (status === 200 && checkedDocuments.has(res.payload)) return;
  let body: unknown;
  try {
    body = JSON.parse(res.payload);
  } catch {
    bad('the body is not JSON');
  }
  // The public OpenAPI document is the one answer that is not an envelope.
  const document = status === 200 && DOCUMENT_PATH.test(new URL(url, 'http://localhost').pathname);
  if (document) {
    if (typeof (body as { openapi?: unknown })?.openapi !== 'string')
      bad('the OpenAPI document has no openapi version');
  } else {
    checkEnvelope(body, status, bad);
    conforms(r.method, url, res, body, bad);
  }
  checkLeaks(res.payload, sent, bad);
  if (document) checkedDocuments.add(res.payload);
}

describe('fuzz: every route answers any request with a well-formed envelope the OpenAPI document describes, never a 5xx or a stack trace', () => {
  test.each(ROUTES.map((route, index) => [route.name, route, index] as const))(
    '%s',
    async (_name, route, index) => {
      const fx = await fixture();
      const histogram = new Map<string, number>();
      const checkedDocuments = new Set<string>();
      let count = 0;
      const polluted = Object.getOwnPropertyNames(Object.prototype).sort().join(',');
      const started = performance.now();
      const seed = routeSeed(index);
      console.log(`fast-check seed ${seed} (base ${SEED}) for ${route.name}`);

      await fc.assert(
        fc.asyncProperty(fuzzRequest(route), async (r) => {
          await fx.ensure();
          const { url, h } = requestTarget(fx, route, r);
          const res = await inject(fx.dispatch, {
            method: r.method,
            url,
            headers: h,
            ...(r.body.payload !== undefined && { payload: r.body.payload }),
          });
          count++;
          const status = res.statusCode;
          const type = res.headers['content-type'];
          const key = String(status) + (type === SSE_TYPE || type === UI_STREAM_TYPE ? ' (stream)' : '');
          histogram.set(key, (histogram.get(key) ?? 0) + 1);

          const sent = describeSent(r, url, h);
          const bad = (message: string): never => fail(message, sent, res);

          checkAnswer(route, r, url, sent, res, polluted, checkedDocuments, bad);
        }),
        { seed, numRuns: RUNS_PER_ROUTE },
      );

      const ms = Math.round(performance.now() - started);
      const statuses = Object.fromEntries([...histogram].sort(([a], [b]) => a.localeCompare(b)));
      const line = `${route.name}: ${count} requests in ${ms} ms; statuses ${JSON.stringify(statuses)}`;
      console.log(line);
      expect(count).toBeGreaterThanOrEqual(RUNS_PER_ROUTE);
      // Nothing unexpected reached the error log either.
      expect(fx.logged).toStrictEqual([]);
    },
    120_000,
  );
});

describe('the fuzz covers the API', () => {
  test('every route of the routes table has its own fuzzed route here', () => {
    const fuzzed = new Set(ROUTES.map((route) => route.name));
    const missing = HTTP_ROUTES.map((route) => `${route.method.toUpperCase()} ${route.path}`).filter(
      (name) => !fuzzed.has(name),
    );
    expect(missing).toStrictEqual([]);
  });
});

/** The request, in-process, that each known-bug test sends: alpha's own agent, alpha's key, a JSON body. */
async function runWith(body: unknown) {
  const fx = await fixture();
  const res = await inject(fx.dispatch, {
    method: 'POST',
    url: `/api/v1/agents/${fx.ids.alpha}/run`,
    headers: { 'x-api-key': KEY_A, 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });
  return { res, body: JSON.parse(res.payload) as { status: number }, logged: fx.logged };
}

describe('cases this fuzz found, kept as regression tests', () => {
  // A json_format sent as JSON text is past the body's own depth cap; checking a 4 000-level schema
  // once overflowed the stack (a 500). It is now refused with a 400 before anything walks it.
  test('a json_format text nested 4 000 levels deep is refused with a 400, not a 500', async () => {
    const { res, body, logged } = await runWith({
      input: 'x',
      json_format: `${'{"not":{"not":'.repeat(2000)}{}${'}}'.repeat(2000)}`,
    });
    expect([res.statusCode, body.status]).toStrictEqual([400, 400]);
    expect(logged).toStrictEqual([]);
  });

  // A schema demanding 10^8 array items once made the echo model build it and the process die of
  // memory exhaustion. Such demands are now refused with a 400, and the echo model's values are bounded.
  test('a json_format asking for 10^8 array items is refused without building anything', async () => {
    const { res, body } = await runWith({
      input: 'x',
      json_format: { type: 'array', items: { type: 'string' }, minItems: 100_000_000 },
    });
    expect([res.statusCode, body.status]).toStrictEqual([400, 400]);
    expect(res.payload.length).toBeLessThan(1_000);
  }, 60_000);
});
