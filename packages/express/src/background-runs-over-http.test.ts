import { afterEach, describe, expect, test } from 'vitest';
import {
  A,
  agent,
  B,
  call,
  finished,
  ISO,
  logged,
  OTHER,
  serveTwo,
  start,
  stopServers,
} from './background-runs-fixture.js';

// Starting background runs over real HTTP on two servers that share their stores: the 202 and what
// it becomes, the list, idempotent starts, the in-flight limit, and the chat route.
afterEach(stopServers);

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
    }).then((res) => res.json() as Promise<{ data: { agent_id: string } }>);
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
