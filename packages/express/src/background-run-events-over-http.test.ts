import { afterEach, describe, expect, test } from 'vitest';
import {
  A,
  agent,
  allEvents,
  B,
  call,
  events,
  finished,
  ISO,
  KEY,
  logged,
  OTHER,
  readFrames,
  readUntil,
  SLOW_TEXT,
  serveTwo,
  start,
  stopServers,
} from './background-runs-fixture.js';

// A background run's events and cancel over real HTTP, on two servers that share their stores: read
// on one and resumed on the other, streamed while started, bad cursors, cancel from the other server,
// and another account's runs.
afterEach(stopServers);

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

describe('open event streams', () => {
  test('past its limit on a server, an account is refused 429 there, as JSON; another server still serves it', async () => {
    await serveTwo({ maxEventReaders: 1 });
    const run = await start(await agent(), { input: 'hang' });
    const leave = new AbortController();
    const held = await events(A, run.run_id, '', {}, leave.signal);
    const refused = await events(A, run.run_id);
    expect({
      held: held.status,
      status: refused.status,
      retryAfter: refused.headers.get('retry-after'),
      body: await refused.json(),
    }).toStrictEqual({
      held: 200,
      status: 429,
      retryAfter: '1',
      body: {
        success: false,
        error:
          'The account has 1 run event streams open on this server, the most it may have; close one or retry later',
        code: 'rate_limited',
        status: 429,
      },
    });
    const elsewhere = new AbortController();
    expect((await events(B, run.run_id, '', {}, elsewhere.signal)).status).toBe(200);
    elsewhere.abort();
    // The held stream closed, its place is free again.
    leave.abort();
    const again = await readUntilStatus(() => events(A, run.run_id), 200);
    expect(again.status).toBe(200);
    expect((await call(B, 'POST', `/runs/${run.run_id}/cancel`)).body.data.status).toBe('cancelled');
    expect((await readFrames(again)).at(-1)?.event).toBe('error');
    expect(logged).toStrictEqual([]);
  });
});

/** Opens a response with `open` until it has `status` (within 5 s). */
async function readUntilStatus(open: () => Promise<Response>, status: number): Promise<Response> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const res = await open();
    if (res.status === status || Date.now() > deadline) return res;
    await res.body?.cancel();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('cancelling a background run', () => {
  test('cancelled from B while it runs on A: cancelled, nothing stored, its last event an error of code cancelled (409)', async () => {
    await serveTwo();
    const agentId = await agent();
    const run = await start(agentId, { input: 'hang' });
    await readUntil(B, run.run_id, (current) => current.status === 'running');
    // The cancel waits (up to about two seconds) for the run to stop: `cancelled` in its answer is the proof.
    const cancelled = await call(B, 'POST', `/runs/${run.run_id}/cancel`);
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
