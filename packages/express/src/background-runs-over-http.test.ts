import {
  AgentService,
  type BackgroundRunLimits,
  InProcessRunStore,
  inProcessLocks,
  openAIModels,
} from '@agenthost/core';
import { type FakeOpenAIReply, type FakeOpenAIServer, startFakeOpenAIServer } from '@agenthost/core/test';
import { MemoryStore } from '@agenthost/storage';
import { afterEach, describe, expect, test } from 'vitest';
import { staticKeys } from './auth.js';
import { type ServedRouter, serveRouter } from './test-served-router.js';

// Background runs over real HTTP: two servers (two services, two routers) that share one store, one
// lock provider and one in-process run store, as servers on one Redis or PostgreSQL would; the real
// OpenAI provider against a loopback fake that answers slowly, hangs, or answers at once.
const KEY = 'key-background-0123456789abcdef';
const OTHER = 'key-background-other-012345678';
const SLOW_TEXT = ['one ', 'two ', 'three ', 'four ', 'five ', 'six'];
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

let fake: FakeOpenAIServer;
let services: AgentService[] = [];
let servers: ServedRouter[] = [];
let runStore: InProcessRunStore;
let logged: { message: string; fields: Record<string, unknown> }[];
/** The base URLs of server A and server B. */
let A: string;
let B: string;

function behaviour(input: string): FakeOpenAIReply {
  if (input === 'slow') return { text: SLOW_TEXT.join(''), chunks: SLOW_TEXT, chunkDelayMs: 120, usage: usage() };
  if (input === 'hang') return { hang: true };
  return { text: `Reply to: ${input}`, usage: usage() };
}
const usage = () => ({ input: 10, output: 4 });

/** Two servers sharing a store, locks and a run store; `limits` for both services. */
async function serveTwo(limits: BackgroundRunLimits = {}) {
  fake = await startFakeOpenAIServer({
    reply: (request) => behaviour(request.messages.filter((m) => m.role === 'user').at(-1)?.content ?? ''),
  });
  const store = new MemoryStore();
  const locks = inProcessLocks();
  runStore = new InProcessRunStore();
  logged = [];
  services = [0, 1].map(
    () =>
      new AgentService({
        store,
        locks,
        runs: runStore,
        models: openAIModels({ apiKey: 'provider-key', baseURL: fake.baseURL, models: ['gpt-4o-mini'] }),
        maxRetries: 0,
        backgroundRuns: { maxInFlight: 4, ...limits },
      }),
  );
  servers = await Promise.all(
    services.map((service) =>
      serveRouter(service, {
        resolveKey: staticKeys([
          { account: 'acme', key: KEY },
          { account: 'other', key: OTHER },
        ]),
        logger: { error: (fields, message) => logged.push({ fields, message }) },
      }),
    ),
  );
  [A, B] = servers.map((served) => served.base) as [string, string];
}

afterEach(async () => {
  await Promise.all(servers.map((served) => served.close()));
  await Promise.all(services.map((service) => service.close()));
  await runStore.close?.();
  await fake.close();
  servers = [];
  services = [];
});

async function call(base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(base + path, {
    method,
    headers: { 'x-api-key': KEY, 'content-type': 'application/json', ...headers },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, any> };
}

const agent = async () =>
  (await call(A, 'POST', '/agents', { name: 'A', instruction: 'Be brief.', model: 'gpt-4o-mini' })).body.data
    .agent_id as string;

/** Starts a background run on server A and answers its run object. */
async function start(agentId: string, body: Record<string, unknown>) {
  const res = await call(A, 'POST', `/agents/${agentId}/run`, { ...body, background: true });
  expect(res.status).toBe(202);
  return res.body.data as Record<string, any>;
}

/** Reads the run from `base` until `done` says it is (within 10 s). */
async function readUntil(base: string, runId: string, done: (run: Record<string, any>) => boolean) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const run = (await call(base, 'GET', `/runs/${runId}`)).body.data as Record<string, any>;
    if (done(run) || Date.now() > deadline) return run;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
const finished = (base: string, runId: string) =>
  readUntil(base, runId, (run) => !['queued', 'running'].includes(run.status));

interface Frame {
  id?: number;
  event: string;
  data: any;
}

function frameOf(block: string): Frame | undefined {
  const lines = block.split('\n').filter((line) => !line.startsWith(':'));
  if (lines.length === 0) return undefined;
  const field = (name: string) => lines.find((line) => line.startsWith(`${name}: `))?.slice(name.length + 2);
  const id = field('id');
  return { ...(id !== undefined && { id: Number(id) }), event: field('event')!, data: JSON.parse(field('data')!) };
}

/**
 * Reads the frames of a server-sent event answer as they come; with `stopAfter`, goes away (aborts
 * the request) once that many frames arrived.
 */
async function readFrames(res: Response, options: { stopAfter?: number; abort?: AbortController } = {}) {
  const frames: Frame[] = [];
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return frames;
    text += value;
    const blocks = text.split('\n\n');
    text = blocks.pop()!;
    for (const block of blocks) {
      const frame = frameOf(block);
      if (frame) frames.push(frame);
      if (frames.length === options.stopAfter) {
        options.abort?.abort();
        await reader.cancel().catch(() => {});
        return frames;
      }
    }
  }
}

/** Opens `GET /runs/{runId}/events` on `base`. */
function events(base: string, runId: string, query = '', headers: Record<string, string> = {}, signal?: AbortSignal) {
  return fetch(`${base}/runs/${runId}/events${query}`, {
    headers: { 'x-api-key': KEY, ...headers },
    ...(signal && { signal }),
  });
}

const allEvents = async (base: string, runId: string) => readFrames(await events(base, runId));

describe('starting a background run', () => {
  test('202 at once with the whole run object, then its status and a result equal to a plain run', async () => {
    await serveTwo();
    const agentId = await agent();
    const res = await call(A, 'POST', `/agents/${agentId}/run`, { input: 'hello', background: true });
    expect({ status: res.status, body: res.body }).toStrictEqual({
      status: 202,
      body: {
        success: true,
        status: 202,
        data: {
          run_id: expect.any(String),
          agent_id: agentId,
          session_id: expect.stringMatching(/^ses_/),
          status: 'queued',
          created_at: expect.stringMatching(ISO),
          started_at: null,
          finished_at: null,
          result: null,
          error: null,
          last_event_id: 0,
        },
      },
    });
    const run = res.body.data;
    // Read from the other server: it runs nowhere there, but the store has it.
    const done = await finished(B, run.run_id);
    const plain = (await call(A, 'POST', `/agents/${agentId}/run`, { input: 'hello' })).body.data;
    expect(done).toStrictEqual({
      ...run,
      status: 'completed',
      started_at: expect.stringMatching(ISO),
      finished_at: expect.stringMatching(ISO),
      result: { ...plain, session_id: run.session_id },
      last_event_id: expect.any(Number),
    });
    expect(done.last_event_id).toBeGreaterThan(0);
    // The turn is stored in the run's session, as a plain run's.
    const session = (await call(B, 'GET', `/agents/${agentId}/sessions/${run.session_id}`)).body.data;
    expect(session.messages.map((m: { role: string; content: string }) => [m.role, m.content])).toStrictEqual([
      ['user', 'hello'],
      ['assistant', 'Reply to: hello'],
    ]);
    expect(logged).toStrictEqual([]);
  });

  test('an agent lists its runs newest first, a page at a time', async () => {
    await serveTwo();
    const agentId = await agent();
    const ids: string[] = [];
    for (const input of ['first', 'second', 'third']) {
      const run = await start(agentId, { input });
      await finished(A, run.run_id);
      ids.push(run.run_id);
      // Each run is created in a later millisecond than the one before.
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const page = await call(B, 'GET', `/agents/${agentId}/runs?limit=2`);
    expect(page.status).toBe(200);
    expect(page.body.data.runs.map((run: { run_id: string }) => run.run_id)).toStrictEqual([ids[2], ids[1]]);
    expect(page.body.data.runs.map((run: { status: string }) => run.status)).toStrictEqual(['completed', 'completed']);
    expect(page.body.data.runs[0]).toStrictEqual(await finished(A, ids[2]!));
    const next = await call(A, 'GET', `/agents/${agentId}/runs?limit=2&cursor=${page.body.data.next_cursor}`);
    expect(next.body.data).toStrictEqual({ runs: [await finished(A, ids[0]!)], next_cursor: null });
    const bad = await call(A, 'GET', `/agents/${agentId}/runs?limit=0`);
    expect([bad.status, bad.body.code]).toStrictEqual([400, 'invalid_input']);
  });

  test('Idempotency-Key: a retry gets the same 202 and starts nothing; stream + background refuses the key', async () => {
    await serveTwo();
    const agentId = await agent();
    const headers = { 'idempotency-key': 'start-once' };
    const first = await call(A, 'POST', `/agents/${agentId}/run`, { input: 'once', background: true }, headers);
    const again = await call(A, 'POST', `/agents/${agentId}/run`, { input: 'once', background: true }, headers);
    expect([first.status, again.status, again.headers.get('idempotent-replayed')]).toStrictEqual([202, 202, 'true']);
    expect(again.body).toStrictEqual(first.body);
    await finished(A, first.body.data.run_id);
    const listed = (await call(A, 'GET', `/agents/${agentId}/runs`)).body.data.runs;
    expect(listed.map((run: { run_id: string }) => run.run_id)).toStrictEqual([first.body.data.run_id]);
    const streamed = await call(
      A,
      'POST',
      `/agents/${agentId}/run`,
      { input: 'once', background: true, stream: true },
      { 'idempotency-key': 'streamed' },
    );
    expect([streamed.status, streamed.body.code]).toStrictEqual([400, 'invalid_input']);
  });

  test('a background that is not a boolean is a 400 naming it, and nothing starts', async () => {
    await serveTwo();
    const agentId = await agent();
    const res = await call(A, 'POST', `/agents/${agentId}/run`, { input: 'x', background: 'yes' });
    expect({ status: res.status, body: res.body }).toStrictEqual({
      status: 400,
      body: {
        success: false,
        error: 'Invalid request format',
        code: 'invalid_input',
        details: { background: { message: 'background must be true or false', path: ['background'] } },
        status: 400,
      },
    });
    expect((await call(A, 'GET', `/agents/${agentId}/runs`)).body.data).toStrictEqual({ runs: [], next_cursor: null });
  });
});

describe("a background run's events", () => {
  test('read on B, left after the third, resumed on A with Last-Event-ID and with ?after=: every later event exactly once', async () => {
    await serveTwo();
    const agentId = await agent();
    const run = await start(agentId, { input: 'slow' });
    const leave = new AbortController();
    const opened = await events(B, run.run_id, '', {}, leave.signal);
    expect([opened.status, opened.headers.get('content-type')]).toStrictEqual([
      200,
      'text/event-stream; charset=utf-8',
    ]);
    const firstThree = await readFrames(opened, { stopAfter: 3, abort: leave });
    expect(firstThree.map((frame) => frame.id)).toStrictEqual([1, 2, 3]);
    const byHeader = await readFrames(await events(A, run.run_id, '', { 'last-event-id': '3' }));
    const byQuery = await readFrames(await events(B, run.run_id, '?after=3'));
    // Both given: the header wins.
    const both = await readFrames(await events(A, run.run_id, '?after=1', { 'last-event-id': '3' }));
    const all = await allEvents(A, run.run_id);
    expect(all.map((frame) => frame.id)).toStrictEqual(all.map((_, index) => index + 1));
    expect([...firstThree, ...byHeader]).toStrictEqual(all);
    expect(byQuery).toStrictEqual(byHeader);
    expect(both).toStrictEqual(byHeader);
    // The text of the deltas is the answer; the last event is done, with the run's result.
    const deltas = all.filter((frame) => frame.event === 'text-delta').map((frame) => frame.data.delta);
    expect(deltas.join('')).toBe(SLOW_TEXT.join(''));
    const done = await finished(A, run.run_id);
    expect(all.at(-1)).toStrictEqual({ id: done.last_event_id, event: 'done', data: done.result });
    expect(all.slice(0, -1).every((frame) => frame.event === 'text-delta')).toBe(true);
    // Past the last event: the stream ends at once, with none.
    expect(await readFrames(await events(B, run.run_id, `?after=${done.last_event_id}`))).toStrictEqual([]);
  });

  test('stream + background: the run frame without an id, then its events; the client leaving does not stop it', async () => {
    await serveTwo();
    const agentId = await agent();
    const leave = new AbortController();
    const res = await fetch(`${A}/agents/${agentId}/run`, {
      method: 'POST',
      headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ input: 'slow', stream: true, background: true }),
      signal: leave.signal,
    });
    expect([res.status, res.headers.get('content-type')]).toStrictEqual([200, 'text/event-stream; charset=utf-8']);
    const [runFrame, first] = await readFrames(res, { stopAfter: 2, abort: leave });
    expect(runFrame).toStrictEqual({
      event: 'run',
      data: {
        run_id: expect.any(String),
        agent_id: agentId,
        session_id: expect.stringMatching(/^ses_/),
        status: 'queued',
        created_at: expect.stringMatching(ISO),
        started_at: null,
        finished_at: null,
        result: null,
        error: null,
        last_event_id: 0,
      },
    });
    expect(first).toStrictEqual({ id: 1, event: 'text-delta', data: { delta: 'one ' } });
    const runId = runFrame!.data.run_id as string;
    const done = await finished(B, runId);
    expect([done.status, done.result.output]).toStrictEqual(['completed', SLOW_TEXT.join('')]);
    const session = (await call(B, 'GET', `/agents/${agentId}/sessions/${done.session_id}`)).body.data;
    expect(session.message_count).toBe(2);
    // Its events are all there to read again, the first as the leaving client saw it.
    const all = await allEvents(B, runId);
    expect([all[0], all.at(-1)]).toStrictEqual([first, { id: done.last_event_id, event: 'done', data: done.result }]);
    expect(logged).toStrictEqual([]);
  });

  test.each([
    ['after=-1', '?after=-1', {}, 'after'],
    ['after=1.5', '?after=1.5', {}, 'after'],
    ['after repeated', '?after=1&after=2', {}, 'after'],
    ['after=9007199254740992', '?after=9007199254740992', {}, 'after'],
    ['Last-Event-ID: abc', '', { 'last-event-id': 'abc' }, 'Last-Event-ID'],
    ['a bad Last-Event-ID, a good after', '?after=1', { 'last-event-id': '-1' }, 'Last-Event-ID'],
  ])('%s is a 400 naming it', async (_name, query, headers, field) => {
    await serveTwo();
    const run = await start(await agent(), { input: 'hello' });
    const res = await events(B, run.run_id, query, headers);
    expect({ status: res.status, body: await res.json() }).toStrictEqual({
      status: 400,
      body: {
        success: false,
        error: 'Invalid request format',
        code: 'invalid_input',
        details: {
          [field]: {
            message: `${field} must be the id of an event: a whole number from 0 to 9007199254740991`,
            path: [field],
          },
        },
        status: 400,
      },
    });
  });
});

describe('cancelling a background run', () => {
  test('cancelled from B while it runs on A: cancelled, nothing stored, its last event an error of code cancelled (409)', async () => {
    await serveTwo();
    const agentId = await agent();
    const run = await start(agentId, { input: 'hang' });
    await readUntil(B, run.run_id, (current) => current.status === 'running');
    const started = performance.now();
    const cancelled = await call(B, 'POST', `/runs/${run.run_id}/cancel`);
    const elapsed = performance.now() - started;
    expect({ status: cancelled.status, body: cancelled.body }).toStrictEqual({
      status: 200,
      body: {
        success: true,
        status: 200,
        data: {
          ...run,
          status: 'cancelled',
          started_at: expect.stringMatching(ISO),
          finished_at: expect.stringMatching(ISO),
          error: { code: 'cancelled', message: 'The run was cancelled' },
          last_event_id: expect.any(Number),
        },
      },
    });
    expect(elapsed).toBeLessThan(2_000);
    // Nothing of the turn was stored: the session was never written.
    expect((await call(A, 'GET', `/agents/${agentId}/sessions/${run.session_id}`)).status).toBe(404);
    const all = await allEvents(A, run.run_id);
    expect(all.at(-1)).toStrictEqual({
      id: cancelled.body.data.last_event_id,
      event: 'error',
      data: { success: false, error: 'The run was cancelled', code: 'cancelled', status: 409 },
    });
    // Cancelling a finished run answers it as it is.
    const again = await call(A, 'POST', `/runs/${run.run_id}/cancel`);
    expect(again.body).toStrictEqual(cancelled.body);
    // The session takes a new run.
    const next = await call(A, 'POST', `/agents/${agentId}/run`, { input: 'hello', session_id: run.session_id });
    expect([next.status, next.body.data.output]).toStrictEqual([200, 'Reply to: hello']);
    expect(logged).toStrictEqual([]);
  });
});

describe("another account's runs", () => {
  test('are 404 on every run route, whatever else is wrong with the request', async () => {
    await serveTwo();
    const agentId = await agent();
    const run = await start(agentId, { input: 'hello' });
    await finished(A, run.run_id);
    const other = { 'x-api-key': OTHER };
    const answers = [
      await call(B, 'GET', `/runs/${run.run_id}`, undefined, other),
      await call(B, 'POST', `/runs/${run.run_id}/cancel`, undefined, other),
      await call(B, 'GET', `/agents/${agentId}/runs`, undefined, other),
      await call(B, 'GET', `/runs/${run.run_id}/events`, undefined, other),
      await call(B, 'GET', `/runs/${run.run_id}/events?after=-1`, undefined, other),
      await call(B, 'GET', '/runs/run_unknown', undefined),
    ];
    const notFound = (error: string) => ({
      status: 404,
      body: { success: false, error, code: 'not_found', status: 404 },
    });
    expect(answers.map(({ status, body }) => ({ status, body }))).toStrictEqual([
      notFound('Run not found'),
      notFound('Run not found'),
      notFound('Agent not found'),
      notFound('Run not found'),
      notFound('Run not found'),
      notFound('Run not found'),
    ]);
    // The owner still sees it, unchanged.
    expect((await call(A, 'GET', `/runs/${run.run_id}`)).body.data.status).toBe('completed');
  });
});

describe('the in-flight limit', () => {
  test('past the runs an account may have in flight: 429 rate_limited with Retry-After, on either server', async () => {
    await serveTwo({ maxInFlight: 2 });
    const agentId = await agent();
    const hanging = [await start(agentId, { input: 'hang' }), await start(agentId, { input: 'hang' })];
    const refused = await call(B, 'POST', `/agents/${agentId}/run`, { input: 'one more', background: true });
    expect({
      status: refused.status,
      retryAfter: refused.headers.get('retry-after'),
      body: refused.body,
    }).toStrictEqual({
      status: 429,
      retryAfter: expect.stringMatching(/^\d+$/),
      body: { success: false, error: expect.stringContaining('2'), code: 'rate_limited', status: 429 },
    });
    // Another account is not limited by these; once one finishes, the account may start another.
    const others = await fetch(`${B}/agents`, {
      method: 'POST',
      headers: { 'x-api-key': OTHER, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'O', instruction: 'x', model: 'gpt-4o-mini' }),
    }).then((res) => res.json());
    const otherRun = await call(
      B,
      'POST',
      `/agents/${others.data.agent_id}/run`,
      { input: 'hello', background: true },
      { 'x-api-key': OTHER },
    );
    expect(otherRun.status).toBe(202);
    await call(A, 'POST', `/runs/${hanging[0]!.run_id}/cancel`);
    expect((await call(B, 'POST', `/agents/${agentId}/run`, { input: 'now', background: true })).status).toBe(202);
    await call(A, 'POST', `/runs/${hanging[1]!.run_id}/cancel`);
  });
});

describe('the chat route with background', () => {
  test('either shape answers 202 with the run; its result is the chat reply; answering approvals is not a background run', async () => {
    await serveTwo();
    const agentId = await agent();
    const truffle = await call(A, 'POST', `/agents/${agentId}/chat`, {
      messages: [
        { role: 'user', content: 'earlier' },
        { role: 'assistant', content: 'ok' },
        { role: 'user', content: 'hi' },
      ],
      background: true,
    });
    const ui = await call(A, 'POST', `/agents/${agentId}/chat`, {
      id: 'chat-1',
      messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'hello there' }] }],
      background: true,
    });
    for (const res of [truffle, ui]) {
      expect([res.status, res.headers.get('content-type'), Object.keys(res.body).sort()]).toStrictEqual([
        202,
        'application/json; charset=utf-8',
        ['data', 'status', 'success'],
      ]);
      expect(res.body.data).toMatchObject({ agent_id: agentId, status: 'queued', result: null });
    }
    const outputs = [
      (await finished(B, truffle.body.data.run_id)).result.output,
      (await finished(B, ui.body.data.run_id)).result.output,
    ];
    expect(outputs).toStrictEqual(['Reply to: hi', 'Reply to: hello there']);
    // The truffle-ai shape's earlier messages were the run's history, not stored: the session holds the turn only.
    const session = (await call(A, 'GET', `/agents/${agentId}/sessions/${truffle.body.data.session_id}`)).body.data;
    expect(session.message_count).toBe(2);
    const approvals = await call(A, 'POST', `/agents/${agentId}/chat`, {
      session_id: ui.body.data.session_id,
      messages: [
        { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'add' }] },
        {
          id: 'a1',
          role: 'assistant',
          parts: [
            {
              type: 'tool-add',
              toolCallId: 'call_1',
              state: 'approval-responded',
              approval: { id: 'apr_1', approved: true },
            },
          ],
        },
      ],
      background: true,
    });
    expect({ status: approvals.status, body: approvals.body }).toStrictEqual({
      status: 400,
      body: {
        success: false,
        error: 'Invalid request format',
        code: 'invalid_input',
        details: {
          background: {
            message: 'background runs start on a user message: send the answers to approvals without background',
            path: ['background'],
          },
        },
        status: 400,
      },
    });
  });
});
