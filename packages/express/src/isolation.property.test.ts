import { isDeepStrictEqual } from 'node:util';
import {
  type AgentRecord,
  AgentService,
  countEchoTokens,
  echoModels,
  type SessionInfo,
  type SessionMessage,
} from '@agenthost/core';
import { sequentialIds, type TestClock, testClock } from '@agenthost/core/test';
import { MemoryStore } from '@agenthost/storage';
import express from 'express';
import fc from 'fast-check';
import inject from 'light-my-request';
import { expect, test } from 'vitest';
import { staticKeys } from './auth.js';
import { createAgentRouter } from './router.js';

// Random sequences of operations by three accounts, checked after every step against a plain model
// of who owns which agent, session and message. Fixed seed, so CI replays the same sequences; set
// FC_SEED (and FC_RUNS) to explore others.
const SEED = Number(process.env.FC_SEED ?? 20261122);
const NUM_RUNS = Number(process.env.FC_RUNS ?? 100);
const MAX_COMMANDS = 25;

const ACCOUNTS = [
  { account: 'acct-alpha', key: 'key-alpha-0123456789abcdef' },
  { account: 'acct-beta', key: 'key-beta-0123456789abcdef' },
  { account: 'acct-gamma', key: 'key-gamma-0123456789abcdef' },
] as const;
const BASE = '/api/v1';
const JSON_TYPE = 'application/json; charset=utf-8';
const SSE_TYPE = 'text/event-stream; charset=utf-8';
const START = '2026-11-22T10:00:00.000Z';
const NOT_FOUND = { success: false, error: 'Agent not found', code: 'not_found', status: 404 };
const SESSION_NOT_FOUND = { success: false, error: 'Session not found', code: 'not_found', status: 404 };
const SESSION_ID_RULE = 'session_id must be 1 to 128 characters of letters, digits, ".", "_", ":" or "-"';

// ---------------------------------------------------------------------------------------------
// The operations

type Account = 0 | 1 | 2;
/**
 * Which agent an operation names: one of the caller's live agents (one with sessions, for session
 * operations), any id ever created (another account's, deleted ones too), or a made-up id.
 */
type AgentTarget = { kind: 'own' | 'ownWithSessions' | 'any'; pick: number } | { kind: 'madeup'; id: string };
/** Which session an operation names: a client-chosen id many callers share, a session of the target agent, any server-made id seen so far, or an id that cannot be one. */
type SessionTarget =
  | { kind: 'pool'; id: string }
  | { kind: 'ofAgent'; pick: number }
  | { kind: 'seen'; pick: number }
  | { kind: 'junk'; id: string };
type AgentFields = { name?: string; instruction?: string; model?: string; tool?: string | null; component?: string };

type Op =
  | { type: 'create'; account: Account; body: Record<string, unknown>; valid: boolean }
  | { type: 'get'; account: Account; target: AgentTarget }
  | { type: 'list'; account: Account; paged: { limit: number; order: 'asc' | 'desc' | undefined } | null }
  | {
      type: 'update';
      account: Account;
      target: AgentTarget;
      method: 'PATCH' | 'PUT';
      changes: AgentFields;
      nested: boolean;
    }
  | { type: 'delete'; account: Account; target: AgentTarget }
  | {
      type: 'run';
      account: Account;
      target: AgentTarget;
      input: string;
      field: 'input' | 'input_data';
      session: SessionTarget | null;
      stream: 'no' | 'body' | 'accept';
    }
  | { type: 'listSessions'; account: Account; target: AgentTarget; limit: number | undefined }
  | { type: 'getSession'; account: Account; target: AgentTarget; session: SessionTarget; limit: number | undefined }
  | { type: 'deleteSession'; account: Account; target: AgentTarget; session: SessionTarget };

// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is exactly what this finds.
const UNSAFE_TEXT = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const safeText = (maxLength: number) =>
  fc
    .string({
      unit: fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom(...'abc XYZ 123 .,!?'.split('')) },
        fc.constant('é'),
        fc.constant('日本'),
        fc.constant('😀'),
      ),
      minLength: 1,
      maxLength,
    })
    .filter((s) => s.trim().length > 0 && !UNSAFE_TEXT.test(s));
const padded = (arb: fc.Arbitrary<string>) =>
  fc.tuple(fc.constantFrom('', ' ', '  '), arb, fc.constantFrom('', ' ', '\t')).map(([a, s, b]) => a + s + b);

// Mostly two accounts, with a third now and then.
const account: fc.Arbitrary<Account> = fc.oneof(
  { weight: 3, arbitrary: fc.constant(0 as const) },
  { weight: 3, arbitrary: fc.constant(1 as const) },
  { weight: 1, arbitrary: fc.constant(2 as const) },
);
const agentTarget: fc.Arbitrary<AgentTarget> = fc.oneof(
  { weight: 8, arbitrary: fc.nat(50).map((pick) => ({ kind: 'own', pick }) as const) },
  { weight: 3, arbitrary: fc.nat(50).map((pick) => ({ kind: 'any', pick }) as const) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom('agent_0', 'agent_999', 'agt_AAAAAAAAAAAAAAAAAAAAAA', 'x', 'session_1')
      .map((id) => ({ kind: 'madeup', id }) as const),
  },
);
const sessionAgentTarget: fc.Arbitrary<AgentTarget> = fc.oneof(
  { weight: 1, arbitrary: fc.nat(50).map((pick) => ({ kind: 'ownWithSessions', pick }) as const) },
  { weight: 1, arbitrary: agentTarget },
);
const sessionTarget: fc.Arbitrary<SessionTarget> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('s1', 's2', 'shared').map((id) => ({ kind: 'pool', id }) as const) },
  { weight: 8, arbitrary: fc.nat(20).map((pick) => ({ kind: 'ofAgent', pick }) as const) },
  { weight: 2, arbitrary: fc.nat(20).map((pick) => ({ kind: 'seen', pick }) as const) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('bad id', 'a/b', 'x'.repeat(129)).map((id) => ({ kind: 'junk', id }) as const),
  },
);
const validCreate = fc
  .record(
    {
      name: padded(safeText(12)),
      instruction: safeText(40),
      model: fc.constantFrom('echo', ' echo '),
      tool: fc.constantFrom(null, 'none', 'None', ''),
      component: padded(safeText(8)),
      agent_id: fc.constant('hijack'),
      created_at: fc.constant('2000-01-01T00:00:00.000Z'),
    },
    { requiredKeys: ['name', 'instruction', 'model'] },
  )
  .map((body) => ({ body: body as Record<string, unknown>, valid: true }));
const invalidCreate = fc
  .constantFrom<Record<string, unknown>>(
    { name: 'x', model: 'echo' },
    { name: '   ', instruction: 'y', model: 'echo' },
    { name: 'x', instruction: 'y', model: 'gpt-9' },
    { name: 'x', instruction: 'y', model: 'echo', tool: 'calculator' },
  )
  .map((body) => ({ body, valid: false }));
const changes: fc.Arbitrary<AgentFields> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record(
      {
        name: padded(safeText(12)),
        instruction: safeText(40),
        model: fc.constant('echo'),
        tool: fc.constantFrom(null, 'none', ''),
        component: padded(safeText(8)),
      },
      { requiredKeys: [] },
    ),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom<AgentFields>(
      { name: '' },
      { model: 'gpt-9' },
      { tool: 'calculator' },
      { component: ' ' },
    ),
  },
);

const createOp = (created: fc.Arbitrary<{ body: Record<string, unknown>; valid: boolean }>): fc.Arbitrary<Op> =>
  fc
    .record({ type: fc.constant('create' as const), account, created })
    .map(({ created: c, ...rest }) => ({ ...rest, ...c }));
const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: createOp(fc.oneof({ weight: 6, arbitrary: validCreate }, { weight: 1, arbitrary: invalidCreate })),
  },
  { weight: 2, arbitrary: fc.record({ type: fc.constant('get' as const), account, target: agentTarget }) },
  {
    weight: 1,
    arbitrary: fc.record({
      type: fc.constant('list' as const),
      account,
      paged: fc.option(
        fc.record({
          limit: fc.integer({ min: 1, max: 3 }),
          order: fc.constantFrom('asc' as const, 'desc' as const, undefined),
        }),
        { nil: null },
      ),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      type: fc.constant('update' as const),
      account,
      target: agentTarget,
      method: fc.constantFrom('PATCH' as const, 'PUT' as const),
      changes,
      nested: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('delete' as const), account, target: agentTarget }) },
  {
    weight: 6,
    arbitrary: fc.record({
      type: fc.constant('run' as const),
      account,
      target: agentTarget,
      input: fc.oneof({ weight: 9, arbitrary: safeText(20) }, { weight: 1, arbitrary: fc.constant('   ') }),
      field: fc.constantFrom('input' as const, 'input_data' as const),
      session: fc.option(sessionTarget, { nil: null }),
      stream: fc.constantFrom('no' as const, 'no' as const, 'body' as const, 'accept' as const),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      type: fc.constant('listSessions' as const),
      account,
      target: agentTarget,
      limit: fc.constantFrom(undefined, 1, 2, 100),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      type: fc.constant('getSession' as const),
      account,
      target: sessionAgentTarget,
      session: sessionTarget,
      limit: fc.constantFrom(undefined, 1, 3),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      type: fc.constant('deleteSession' as const),
      account,
      target: sessionAgentTarget,
      session: sessionTarget,
    }),
  },
);

// ---------------------------------------------------------------------------------------------
// The reference model

interface ModelSession {
  info: SessionInfo;
  messages: SessionMessage[];
}
interface ModelAgent {
  owner: Account;
  record: AgentRecord;
  live: boolean;
  /** Live sessions in the order they were first stored. */
  sessions: ModelSession[];
}

class Model {
  /** Every agent ever created, in creation order. */
  readonly agents: ModelAgent[] = [];
  /** Every server-made session id handed out. */
  readonly serverSessionIds: string[] = [];
  #agentCounter = 0;
  #sessionCounter = 0;

  constructor(readonly clock: TestClock) {}

  now(): string {
    return this.clock().toISOString();
  }
  agent(id: string): ModelAgent | undefined {
    return this.agents.find((a) => a.record.agent_id === id);
  }
  /** The agent `id` when `account` may see it. */
  visible(account: Account, id: string): ModelAgent | undefined {
    const agent = this.agent(id);
    return agent?.live && agent.owner === account ? agent : undefined;
  }
  liveAgents(account: Account): ModelAgent[] {
    return this.agents.filter((a) => a.live && a.owner === account);
  }
  nextAgentId(): string {
    return `agent_${++this.#agentCounter}`;
  }
  nextSessionId(): string {
    const id = `session_${++this.#sessionCounter}`;
    this.serverSessionIds.push(id);
    return id;
  }

  resolveAgent(account: Account, target: AgentTarget): string {
    if (target.kind === 'madeup') return target.id;
    const busy = this.liveAgents(account).filter((a) => a.sessions.length > 0);
    if (target.kind === 'ownWithSessions' && busy.length > 0) return busy[target.pick % busy.length]!.record.agent_id;
    const own = this.liveAgents(account);
    if (target.kind !== 'any' && own.length > 0) return own[target.pick % own.length]!.record.agent_id;
    if (this.agents.length > 0) return this.agents[target.pick % this.agents.length]!.record.agent_id;
    return 'agent_0';
  }

  resolveSession(agentId: string, target: SessionTarget): string {
    switch (target.kind) {
      case 'pool':
      case 'junk':
        return target.id;
      case 'ofAgent': {
        const sessions = this.agent(agentId)?.sessions ?? [];
        if (sessions.length > 0) return sessions[target.pick % sessions.length]!.info.session_id;
        return 's1';
      }
      case 'seen': {
        const seen = this.serverSessionIds;
        return seen.length > 0 ? seen[target.pick % seen.length]! : 'session_0';
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The app, driven in-process (no socket per request)

interface Reply {
  status: number;
  contentType: string | undefined;
  text: string;
  headers: Record<string, unknown>;
}

function makeApp(clock: TestClock) {
  const service = new AgentService({
    store: new MemoryStore(),
    models: echoModels(),
    now: clock,
    generateId: sequentialIds(),
    maxRetries: 0,
  });
  const app = express();
  const logged: string[] = [];
  app.use(
    BASE,
    createAgentRouter(service, {
      resolveKey: staticKeys([...ACCOUNTS]),
      logger: { error: (_fields, message) => logged.push(message) },
    }),
  );
  const dispatch = app as unknown as inject.DispatchFunc;
  const call = async (
    account: Account,
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Reply> => {
    const res = await inject(dispatch, {
      method,
      url: BASE + path,
      headers: {
        'x-api-key': ACCOUNTS[account].key,
        ...(body !== undefined && { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body !== undefined && { payload: JSON.stringify(body) }),
    });
    return {
      status: res.statusCode,
      contentType: res.headers['content-type'] as string | undefined,
      text: res.payload,
      headers: res.headers,
    };
  };
  return { call, logged };
}

const enc = encodeURIComponent;
const ok = (data: unknown) => ({ success: true, data, status: 200 });
/** An agent as the API answers it: its config also names the model and tool as `selectedModel` and `selectedTool`. */
const answered = (record: AgentRecord) => ({
  ...record,
  config: { ...record.config, selectedModel: record.config.model, selectedTool: record.config.tool },
});
const invalid = (
  details: Record<string, { message: string; path: (string | number)[] }>,
  error = 'Invalid request format',
) => ({ success: false, error, code: 'invalid_input', details, status: 400 });
const issue = (field: string, message: string) => ({ [field]: { message, path: [field] } });

function json(reply: Reply): unknown {
  expect(reply.contentType).toBe(JSON_TYPE);
  return JSON.parse(reply.text);
}

function expectReply(reply: Reply, status: number, body: unknown): void {
  expect({ status: reply.status, body: json(reply) }).toStrictEqual({ status, body });
}

/** The server-sent events of a streamed run. */
function events(reply: Reply): { event: string; data: unknown }[] {
  expect([reply.status, reply.contentType]).toStrictEqual([200, SSE_TYPE]);
  return reply.text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? '';
      const data = /^data: (.*)$/m.exec(block)?.[1] ?? 'null';
      return { event, data: JSON.parse(data) as unknown };
    });
}

const tokens = (text: string) => 3 + countEchoTokens(text);

// ---------------------------------------------------------------------------------------------
// One step: predict, send, compare, then apply the change to the model

type Call = ReturnType<typeof makeApp>['call'];
type Send = (agentId: string) => Promise<Reply>;
type OpOf<T extends Op['type']> = Extract<Op, { type: T }>;

interface StepContext {
  model: Model;
  call: Call;
  missingCounter: { n: number };
}

/** The same request with an id nobody ever had: it must be answered byte for byte like a foreign one. */
async function sameAsMissing(ctx: StepContext, reply: Reply, send: Send): Promise<void> {
  const missing = await send(`missing_${++ctx.missingCounter.n}`);
  expect({ status: missing.status, type: missing.contentType, text: missing.text }).toStrictEqual({
    status: reply.status,
    type: reply.contentType,
    text: reply.text,
  });
}

/** The agent when the caller may see it; otherwise the reply must be the 404 a missing id gets. */
async function visibleOrNotFound(
  ctx: StepContext,
  account: Account,
  agentId: string,
  reply: Reply,
  send: Send,
): Promise<ModelAgent | undefined> {
  const agent = ctx.model.visible(account, agentId);
  if (!agent) {
    expectReply(reply, 404, NOT_FOUND);
    await sameAsMissing(ctx, reply, send);
  }
  return agent;
}

/** The 400 an invalid create body gets. */
function createError(b: Record<string, unknown>): unknown {
  return b.instruction === undefined
    ? invalid(issue('instruction', 'instruction is required'))
    : typeof b.name === 'string' && b.name.trim() === ''
      ? invalid(issue('name', 'name must not be blank'))
      : b.model === 'gpt-9'
        ? invalid(issue('model', 'Unsupported model "gpt-9". Name a model as provider/model; offered: agenthost: echo'))
        : invalid(
            issue('tool', 'Unknown tool "calculator". This server offers no tools'),
            'Unknown tool "calculator". This server offers no tools',
          );
}

async function createStep(ctx: StepContext, o: OpOf<'create'>): Promise<string | undefined> {
  const { model } = ctx;
  const reply = await ctx.call(o.account, 'POST', '/agents', o.body);
  if (!o.valid) {
    expectReply(reply, 400, createError(o.body));
    return undefined;
  }
  const body = o.body as AgentFields;
  const agentId = model.nextAgentId();
  const now = model.now();
  const name = body.name!.trim();
  const record: AgentRecord = {
    agent_id: agentId,
    name,
    config: {
      agent_id: agentId,
      name,
      instruction: body.instruction!,
      model: 'echo',
      tool: null,
      tools: [],
      require_approval: [],
      component: body.component?.trim() ?? 'Chat',
      temperature: null,
      top_p: null,
      max_output_tokens: null,
      fallback_models: [],
      metadata: {},
    },
    metadata: {},
    version: 1,
    created_at: now,
    updated_at: now,
  };
  expectReply(reply, 200, ok({ agent_id: agentId, created_at: now }));
  model.agents.push({ owner: o.account, record, live: true, sessions: [] });
  return agentId;
}

async function getStep(ctx: StepContext, o: OpOf<'get'>): Promise<string | undefined> {
  const agentId = ctx.model.resolveAgent(o.account, o.target);
  const send = (id: string) => ctx.call(o.account, 'GET', `/agents/${enc(id)}`);
  const reply = await send(agentId);
  const agent = await visibleOrNotFound(ctx, o.account, agentId, reply, send);
  if (agent) expectReply(reply, 200, ok(answered(agent.record)));
  return undefined;
}

async function listStep(ctx: StepContext, o: OpOf<'list'>): Promise<string | undefined> {
  const expected = ctx.model.liveAgents(o.account).map((a) => answered(a.record));
  if (!o.paged) {
    expectReply(await ctx.call(o.account, 'GET', '/agents'), 200, ok(expected));
    return undefined;
  }
  const { limit, order } = o.paged;
  const ordered = order === 'desc' ? [...expected].reverse() : expected;
  const seen: AgentRecord[] = [];
  let after: string | undefined;
  for (let page = 0; ; page++) {
    const query = new URLSearchParams({
      limit: String(limit),
      ...(order && { order }),
      ...(after !== undefined && { after }),
    });
    const reply = await ctx.call(o.account, 'GET', `/agents?${query}`);
    const want = ordered.slice(page * limit, page * limit + limit);
    expectReply(reply, 200, ok(want));
    seen.push(...want);
    after = reply.headers['x-next-cursor'] as string | undefined;
    // A next page is announced exactly when more agents remain.
    expect(after !== undefined).toBe(seen.length < ordered.length);
    if (after === undefined) break;
  }
  expect(seen).toStrictEqual(ordered);
  return undefined;
}

/** The 400 an invalid set of changes gets, or undefined when the changes are valid. */
function updateError(c: AgentFields): unknown {
  if (Object.keys(c).length === 0) {
    return invalid(
      issue(
        'request',
        'Give at least one of name, instruction, model, tool, tools, require_approval, component, temperature, top_p, max_output_tokens, fallback_models, metadata',
      ),
    );
  }
  if (c.name === '') return invalid(issue('name', 'name must not be blank'));
  if (c.component === ' ') return invalid(issue('component', 'component must not be blank'));
  if (c.model === 'gpt-9') {
    return invalid(
      issue('model', 'Unsupported model "gpt-9". Name a model as provider/model; offered: agenthost: echo'),
    );
  }
  if (c.tool === 'calculator') {
    const message = 'Unknown tool "calculator". This server offers no tools';
    return invalid(issue('tool', message), message);
  }
  return undefined;
}

async function updateStep(ctx: StepContext, o: OpOf<'update'>): Promise<string | undefined> {
  const { model } = ctx;
  const agentId = model.resolveAgent(o.account, o.target);
  const body = o.nested
    ? { agent_id: 'hijack', config: o.changes }
    : { ...o.changes, updated_at: '2000-01-01T00:00:00.000Z' };
  const send = (id: string) => ctx.call(o.account, o.method, `/agents/${enc(id)}`, body);
  const reply = await send(agentId);
  const agent = await visibleOrNotFound(ctx, o.account, agentId, reply, send);
  if (!agent) return undefined;
  const c = o.changes;
  const error = updateError(c);
  if (error !== undefined) {
    expectReply(reply, 400, error);
  } else {
    const config = { ...agent.record.config };
    if (c.name !== undefined) config.name = c.name.trim();
    if (c.instruction !== undefined) config.instruction = c.instruction;
    if (c.model !== undefined) config.model = c.model.trim();
    if (c.tool !== undefined) Object.assign(config, { tool: null, tools: [] });
    if (c.component !== undefined) config.component = c.component.trim();
    // A change is a new version; an update that changes nothing leaves the record as it is.
    const record: AgentRecord = isDeepStrictEqual(config, agent.record.config)
      ? agent.record
      : { ...agent.record, name: config.name, config, version: agent.record.version + 1, updated_at: model.now() };
    expectReply(reply, 200, ok(answered(record)));
    agent.record = record;
  }
  return agentId;
}

async function deleteStep(ctx: StepContext, o: OpOf<'delete'>): Promise<string | undefined> {
  const agentId = ctx.model.resolveAgent(o.account, o.target);
  const send = (id: string) => ctx.call(o.account, 'DELETE', `/agents/${enc(id)}`);
  const reply = await send(agentId);
  const agent = await visibleOrNotFound(ctx, o.account, agentId, reply, send);
  if (!agent) return undefined;
  expectReply(reply, 200, ok({ agent_id: agentId, deleted: true }));
  agent.live = false;
  agent.sessions = [];
  return agentId;
}

/** One issue per offending field of a run, all of them at once. */
function runIssues(o: OpOf<'run'>, sessionId: string | undefined): Record<string, { message: string; path: string[] }> {
  return {
    ...(o.input.trim() === '' && issue(o.field, `${o.field} must not be blank`)),
    ...(sessionId !== undefined && !/^[A-Za-z0-9._:-]{1,128}$/.test(sessionId) && issue('session_id', SESSION_ID_RULE)),
  };
}

/** The data a successful run answers with, given the history of its session so far. */
function runResult(agent: ModelAgent, input: string, sessionId: string, history: SessionMessage[]) {
  const output = `Echo: ${input}`;
  const prompt =
    tokens(agent.record.config.instruction) + history.reduce((n, m) => n + tokens(m.content), 0) + tokens(input);
  const completion = countEchoTokens(output);
  return {
    output,
    session_id: sessionId,
    status: 'completed',
    pending_approvals: [],
    metadata: {
      model: 'echo',
      agent_version: agent.record.version,
      tool_used: null,
      tools_used: [],
      tokens: { prompt, completion, total: prompt + completion },
      omitted_messages: 0,
      cost: 0,
    },
  };
}

/** The deltas spell the answer; exactly one `done` ends the stream, carrying the run's data. */
function expectStreamedRun(reply: Reply, result: ReturnType<typeof runResult>): void {
  const frames = events(reply);
  expect(frames.slice(0, -1).every((f) => f.event === 'text-delta')).toBe(true);
  expect(
    frames
      .slice(0, -1)
      .map((f) => (f.data as { delta: string }).delta)
      .join(''),
  ).toBe(result.output);
  expect(frames.at(-1)).toStrictEqual({ event: 'done', data: result });
}

/** Stores the turn of a run in the model: in its session, or in a new one. */
function recordTurn(model: Model, agent: ModelAgent, sessionId: string, input: string, output: string): void {
  const now = model.now();
  const turn: SessionMessage[] = [
    { role: 'user', content: input, parts: [{ type: 'text', text: input }], created_at: now },
    { role: 'assistant', content: output, parts: [{ type: 'text', text: output }], created_at: now },
  ];
  const session = agent.sessions.find((s) => s.info.session_id === sessionId);
  if (session) {
    session.messages.push(...turn);
    session.info = { ...session.info, updated_at: now, message_count: session.messages.length };
  } else
    agent.sessions.push({
      info: { session_id: sessionId, created_at: now, updated_at: now, message_count: 2 },
      messages: turn,
    });
}

async function runStep(ctx: StepContext, o: OpOf<'run'>): Promise<string | undefined> {
  const { model } = ctx;
  const agentId = model.resolveAgent(o.account, o.target);
  const sessionId = o.session ? model.resolveSession(agentId, o.session) : undefined;
  const body = {
    [o.field]: o.input,
    ...(sessionId !== undefined && { session_id: sessionId }),
    ...(o.stream === 'body' && { stream: true }),
  };
  const headers: Record<string, string> = o.stream === 'accept' ? { accept: 'text/event-stream' } : {};
  const send = (id: string) => ctx.call(o.account, 'POST', `/agents/${enc(id)}/run`, body, headers);
  const reply = await send(agentId);
  // Failures before a stream starts are plain JSON, streamed or not.
  const agent = await visibleOrNotFound(ctx, o.account, agentId, reply, send);
  if (!agent) return undefined;
  const issues = runIssues(o, sessionId);
  if (Object.keys(issues).length > 0) {
    expectReply(reply, 400, invalid(issues));
    return undefined;
  }
  const id = sessionId ?? model.nextSessionId();
  const history = agent.sessions.find((s) => s.info.session_id === id)?.messages ?? [];
  const result = runResult(agent, o.input, id, history);
  if (o.stream === 'no') expectReply(reply, 200, ok(result));
  else expectStreamedRun(reply, result);
  recordTurn(model, agent, id, o.input, result.output);
  return agentId;
}

async function listSessionsStep(ctx: StepContext, o: OpOf<'listSessions'>): Promise<string | undefined> {
  const agentId = ctx.model.resolveAgent(o.account, o.target);
  const query = o.limit === undefined ? '' : `?limit=${o.limit}`;
  const send = (id: string) => ctx.call(o.account, 'GET', `/agents/${enc(id)}/sessions${query}`);
  const reply = await send(agentId);
  const agent = await visibleOrNotFound(ctx, o.account, agentId, reply, send);
  if (!agent) return undefined;
  const all = [...agent.sessions].reverse().map((s) => s.info);
  const limit = o.limit ?? 20;
  const body = JSON.parse(reply.text) as { data: { sessions: SessionInfo[]; next_cursor: string | null } };
  expectReply(
    reply,
    200,
    ok({ sessions: all.slice(0, limit), next_cursor: all.length > limit ? body.data.next_cursor : null }),
  );
  // Following the cursors gives every session once, newest first.
  const seen = [...body.data.sessions];
  for (let cursor = body.data.next_cursor; cursor !== null; ) {
    expect(typeof cursor).toBe('string');
    const page = await ctx.call(
      o.account,
      'GET',
      `/agents/${enc(agentId)}/sessions?limit=${limit}&cursor=${enc(cursor)}`,
    );
    const data = (json(page) as { data: { sessions: SessionInfo[]; next_cursor: string | null } }).data;
    expect(data.sessions).toStrictEqual(all.slice(seen.length, seen.length + limit));
    seen.push(...data.sessions);
    cursor = data.next_cursor;
  }
  expect(seen).toStrictEqual(all);
  return undefined;
}

async function getSessionStep(ctx: StepContext, o: OpOf<'getSession'>): Promise<string | undefined> {
  const agentId = ctx.model.resolveAgent(o.account, o.target);
  const sessionId = ctx.model.resolveSession(agentId, o.session);
  const query = o.limit === undefined ? '' : `?limit=${o.limit}`;
  const send = (id: string) => ctx.call(o.account, 'GET', `/agents/${enc(id)}/sessions/${enc(sessionId)}${query}`);
  const reply = await send(agentId);
  const agent = await visibleOrNotFound(ctx, o.account, agentId, reply, send);
  if (!agent) return undefined;
  const session = agent.sessions.find((s) => s.info.session_id === sessionId);
  if (!session) {
    expectReply(reply, 404, SESSION_NOT_FOUND);
    return undefined;
  }
  const limit = o.limit ?? 100;
  const body = JSON.parse(reply.text) as { data: { next_cursor: string | null } };
  const more = session.messages.length > limit;
  expectReply(
    reply,
    200,
    ok({
      ...session.info,
      pending_approvals: [],
      messages: session.messages.slice(0, limit),
      next_cursor: more ? body.data.next_cursor : null,
    }),
  );
  const seen = session.messages.slice(0, limit);
  for (let cursor = body.data.next_cursor; cursor !== null; ) {
    expect(typeof cursor).toBe('string');
    const page = await ctx.call(
      o.account,
      'GET',
      `/agents/${enc(agentId)}/sessions/${enc(sessionId)}?limit=${limit}&cursor=${enc(cursor)}`,
    );
    const data = (json(page) as { data: { messages: SessionMessage[]; next_cursor: string | null } }).data;
    expect(data.messages).toStrictEqual(session.messages.slice(seen.length, seen.length + limit));
    seen.push(...data.messages);
    cursor = data.next_cursor;
  }
  expect(seen).toStrictEqual(session.messages);
  return undefined;
}

async function deleteSessionStep(ctx: StepContext, o: OpOf<'deleteSession'>): Promise<string | undefined> {
  const agentId = ctx.model.resolveAgent(o.account, o.target);
  const sessionId = ctx.model.resolveSession(agentId, o.session);
  const send = (id: string) => ctx.call(o.account, 'DELETE', `/agents/${enc(id)}/sessions/${enc(sessionId)}`);
  const reply = await send(agentId);
  const agent = await visibleOrNotFound(ctx, o.account, agentId, reply, send);
  if (!agent) return undefined;
  const index = agent.sessions.findIndex((s) => s.info.session_id === sessionId);
  if (index < 0) {
    expectReply(reply, 404, SESSION_NOT_FOUND);
    return undefined;
  }
  expectReply(reply, 200, ok({ session_id: sessionId, deleted: true }));
  agent.sessions.splice(index, 1);
  return agentId;
}

type StepFn<T extends Op['type']> = (ctx: StepContext, o: OpOf<T>) => Promise<string | undefined>;

/** One function per operation kind. Each returns the id of the agent it changed, if any. */
const STEPS: { [T in Op['type']]: StepFn<T> } = {
  create: createStep,
  get: getStep,
  list: listStep,
  update: updateStep,
  delete: deleteStep,
  run: runStep,
  listSessions: listSessionsStep,
  getSession: getSessionStep,
  deleteSession: deleteSessionStep,
};

function step(ctx: StepContext, o: Op): Promise<string | undefined> {
  return (STEPS[o.type] as StepFn<Op['type']>)(ctx, o);
}

/**
 * What every account sees equals the model: its agents, each agent's sessions, and (for the agent a
 * step changed, or all of them at the end) every message of every session.
 */
async function checkEveryAccount(model: Model, call: Call, deepFor: string | 'all' | undefined): Promise<void> {
  for (const acc of [0, 1, 2] as const) {
    const agents = model.liveAgents(acc);
    expectReply(await call(acc, 'GET', '/agents'), 200, ok(agents.map((a) => answered(a.record))));
    for (const agent of agents) {
      const id = agent.record.agent_id;
      const sessions = [...agent.sessions].reverse();
      expectReply(
        await call(acc, 'GET', `/agents/${enc(id)}/sessions?limit=100`),
        200,
        ok({ sessions: sessions.map((s) => s.info), next_cursor: null }),
      );
      if (deepFor !== 'all' && deepFor !== id) continue;
      for (const s of sessions) {
        expectReply(
          await call(acc, 'GET', `/agents/${enc(id)}/sessions/${enc(s.info.session_id)}`),
          200,
          ok({ ...s.info, pending_approvals: [], messages: s.messages, next_cursor: null }),
        );
      }
    }
  }
}

test('two or three accounts never see or change each other: random operation sequences match a reference model', async () => {
  console.log('fast-check seed', SEED, 'runs', NUM_RUNS);
  const started = performance.now();
  let commands = 0;
  const outcomes = new Map<string, number>();
  await fc.assert(
    // A few agents first, so that most operations reach an agent of their caller; then anything.
    fc.asyncProperty(
      fc.array(createOp(validCreate), { minLength: 2, maxLength: 3 }),
      fc.array(op, { minLength: 1, maxLength: MAX_COMMANDS - 3, size: 'max' }),
      async (setup, rest) => {
        const ops = [...setup, ...rest];
        const clock = testClock(START);
        const model = new Model(clock);
        const { call, logged } = makeApp(clock);
        const missingCounter = { n: 0 };
        for (const o of ops) {
          clock.advance(1000);
          commands++;
          // The first answer of each step is counted, to show which paths the sequences reach.
          let first: number | undefined;
          const counted: typeof call = async (...args) => {
            const reply = await call(...args);
            first ??= reply.status;
            return reply;
          };
          const touched = await step({ model, call: counted, missingCounter }, o);
          const key = `${o.type} ${first}`;
          outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
          await checkEveryAccount(model, call, touched);
        }
        // Other accounts still see nothing of each agent: a foreign id answers as a missing one.
        for (const agent of model.agents) {
          for (const acc of [0, 1, 2] as const) {
            if (model.visible(acc, agent.record.agent_id)) continue;
            expectReply(await call(acc, 'GET', `/agents/${enc(agent.record.agent_id)}`), 404, NOT_FOUND);
          }
        }
        await checkEveryAccount(model, call, 'all');
        expect(logged).toStrictEqual([]);
      },
    ),
    { seed: SEED, numRuns: NUM_RUNS },
  );
  console.log(
    `isolation: ${NUM_RUNS} runs, ${commands} commands (shrinking included) in ${Math.round(performance.now() - started)} ms`,
  );
  console.log('outcomes (operation status: count)', Object.fromEntries([...outcomes].sort()));
}, 120_000);
