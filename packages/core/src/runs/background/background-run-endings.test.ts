import { MemoryStore } from '@agenthost/storage';
import { APICallError } from '@ai-sdk/provider';
import { tool } from 'ai';
import { convertArrayToReadableStream, MockLanguageModelV4 } from 'ai/test';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { z } from 'zod';
import type { AgentService } from '../../agent-service.js';
import { staticModels } from '../../models/static-models.js';
import { agentHostError } from '../../testing/rejection.js';
import { staticTools } from '../../tools/static-tools.js';
import { type BackgroundFixture, backgroundFixture, collectEvents, runStoreView } from './background-test-kit.js';
import { SERVER_LOST } from './lost-runs.js';

const ACME = 'acme';
const AT = '2026-01-01T00:00:00.000Z';
let f: BackgroundFixture;

beforeEach(() => {
  f = backgroundFixture(new MemoryStore());
});
afterEach(() => f.close());

async function agent(service: AgentService, model = 'slow'): Promise<string> {
  return (await service.createAgent(ACME, { name: 'A', instruction: 'I', model })).agent_id;
}

describe('how a background run ends', () => {
  test('a failing provider fails it with the error code, its last event the same error', async () => {
    const svc = f.service();
    const agentId = await agent(svc);
    const { run_id, session_id } = await svc.startRun(ACME, agentId, { input: 'hi' });
    await f.slow.started();
    f.slow.send('partial');
    const failure = new APICallError({ message: 'HTTP 500', url: 'http://x', requestBodyValues: {}, statusCode: 500 });
    f.slow.fail(failure);
    const run = await f.settled(svc, run_id);
    expect([run.status, run.error?.code, run.result]).toStrictEqual(['failed', 'provider_error', null]);
    const events = await collectEvents(await svc.runEvents(ACME, run_id));
    expect(events.at(-1)).toStrictEqual({ id: run.last_event_id, event: { type: 'error', ...run.error } });
    expect(await f.messages(agentId, session_id)).toStrictEqual([]);
  });

  test('a store failure as it starts fails it (internal) and frees its session', async () => {
    const runs = runStoreView(f.runs, {
      updateRun: (accountId, runId, from, change, condition) =>
        change.status === 'running'
          ? Promise.reject(new Error('store down'))
          : f.runs.updateRun(accountId, runId, from, change, condition),
    });
    const svc = f.service({ runs, runWaitMs: 50 });
    const agentId = await agent(svc);
    const { run_id } = await svc.startRun(ACME, agentId, { input: 'hi', session_id: 's' });
    expect(await f.settled(svc, run_id)).toMatchObject({
      status: 'failed',
      started_at: null,
      error: { code: 'internal', message: 'The run failed' },
      last_event_id: 1,
    });
    const next = await svc.streamAgent(ACME, agentId, { input: 'again', session_id: 's' });
    await next[Symbol.asyncIterator]().return?.();
    expect(f.slow.calls).toBe(0);
  });

  test('a finishing update that fails once is tried again: the run completes with its result', async () => {
    let failures = 0;
    const runs = runStoreView(f.runs, {
      updateRun: (accountId, runId, from, change, condition) =>
        change.finished_at !== undefined && failures++ === 0
          ? Promise.reject(new Error('connection reset'))
          : f.runs.updateRun(accountId, runId, from, change, condition),
    });
    const svc = f.service({ runs });
    const agentId = await agent(svc);
    const { run_id, session_id } = await svc.startRun(ACME, agentId, { input: 'hi' });
    await f.slow.started();
    f.slow.send('answer');
    f.slow.finish();
    const run = await f.settled(svc, run_id);
    expect([run.status, run.error, run.result?.output, failures]).toStrictEqual(['completed', null, 'answer', 2]);
    const events = await collectEvents(await svc.runEvents(ACME, run_id));
    expect(events.at(-1)).toStrictEqual({ id: run.last_event_id, event: { type: 'done', result: run.result } });
    expect(await f.messages(agentId, session_id)).toHaveLength(2);
  });

  test('a run another server ended before it could start never counts as running', async () => {
    const counted: unknown[] = [];
    let svc: AgentService | undefined;
    const runs = runStoreView(f.runs, {
      // Another server ended it (as lost) meanwhile: marking it running finds it no longer queued.
      updateRun: (accountId, runId, from, change, condition) =>
        change.status === 'running'
          ? Promise.resolve(undefined)
          : f.runs.updateRun(accountId, runId, from, change, condition),
      // What the metric says as the run stops (its cancel listener goes last).
      subscribe: async (runId, listener) => {
        const unsubscribe = await f.runs.subscribe(runId, listener);
        return async () => {
          counted.push(svc?.backgroundRunCounts());
          await unsubscribe();
        };
      },
    });
    svc = f.service({ runs });
    const agentId = await agent(svc);
    const { session_id } = await svc.startRun(ACME, agentId, { input: 'hi' });
    await vi.waitFor(() => expect(counted).toHaveLength(1));
    expect([counted, svc.backgroundRunCounts()]).toStrictEqual([
      [{ queued: 1, running: 0 }],
      { queued: 0, running: 0 },
    ]);
    expect(await f.messages(agentId, session_id)).toStrictEqual([]);
  });

  test('tool calls that wait for approval end it requires_approval, its result listing them', async () => {
    const usage = {
      inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: 1, text: 1, reasoning: 0 },
    };
    const model = new MockLanguageModelV4({
      doStream: async () => ({
        stream: convertArrayToReadableStream([
          { type: 'tool-call', toolCallId: 'c1', toolName: 'send', input: '{"to":"bob"}' },
          { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage },
        ]),
      }),
    });
    const send = tool({ inputSchema: z.object({ to: z.string() }), execute: async () => 'sent' });
    const svc = f.service({ models: staticModels({ m: model }), tools: staticTools({ mail: { send } }) });
    const { agent_id } = await svc.createAgent(ACME, {
      name: 'A',
      instruction: 'I',
      model: 'm',
      tools: ['mail'],
      require_approval: ['mail'],
    });
    const { run_id } = await svc.startRun(ACME, agent_id, { input: 'Mail Bob', session_id: 's' });
    const run = await f.settled(svc, run_id);
    const approvals = run.result?.pending_approvals ?? [];
    expect([run.status, run.result?.status, approvals.map((a) => a.tool_call_id)]).toStrictEqual([
      'requires_approval',
      'requires_approval',
      ['c1'],
    ]);
    const events = (await collectEvents(await svc.runEvents(ACME, run_id))).map((e) => e.event);
    expect(events.slice(-2)).toStrictEqual([
      { type: 'approval-request', ...approvals[0] },
      { type: 'done', result: run.result },
    ]);
    // A later run of the session is refused while the turn waits: it ends failed with the conflict.
    const next = await svc.startRun(ACME, agent_id, { input: 'again', session_id: 's' });
    expect(await f.settled(svc, next.run_id)).toMatchObject({
      status: 'failed',
      started_at: null,
      error: { code: 'conflict' },
    });
  });

  test('once its events expired, a reader gets its last event, rebuilt from its record', async () => {
    const svc = f.service({ backgroundRuns: { eventRetentionMs: 1000 } });
    const agentId = await agent(svc, 'echo');
    const { run_id } = await svc.startRun(ACME, agentId, { input: 'hi' });
    await collectEvents(await svc.runEvents(ACME, run_id));
    const run = await f.settled(svc, run_id);
    f.clock.advance(999);
    await f.runs.purge(f.clock().getTime());
    expect(await collectEvents(await svc.runEvents(ACME, run_id, { after: run.last_event_id - 1 }))).toStrictEqual([
      { id: run.last_event_id, event: { type: 'done', result: run.result } },
    ]);
    f.clock.advance(1);
    await f.runs.purge(f.clock().getTime());
    const rebuilt = [{ id: run.last_event_id, event: { type: 'done', result: run.result } }];
    expect(await collectEvents(await svc.runEvents(ACME, run_id))).toStrictEqual(rebuilt);
    expect(await collectEvents(await svc.runEvents(ACME, run_id, { after: run.last_event_id }))).toStrictEqual([]);
  });

  test("a run whose server is gone (its lease ran out) fails server_lost through another server's sweeper", async () => {
    const svc = f.service();
    const agentId = await agent(svc);
    const lost = {
      run_id: 'run_lost',
      account_id: ACME,
      agent_id: agentId,
      session_id: 's',
      status: 'running' as const,
      created_at: AT,
      started_at: AT,
      finished_at: null,
      result: null,
      error: null,
      last_event_id: 1,
      cancel_requested: false,
      owner: 'gone',
      lease_until: f.clock().getTime() + 1000,
      events_expire_at: null,
      expires_at: null,
    };
    await f.runs.createRun(lost, { maxInFlight: 9 });
    // Its record lags behind its events, as between two renewals.
    const written = [1, 2].map((id) => ({ id, event: { type: 'text-delta' as const, delta: `${id}` } }));
    await f.runs.appendEvents('run_lost', written);
    const other = f.service({ backgroundRuns: { leaseMs: 30 } });
    await new Promise((resolve) => setTimeout(resolve, 60));
    // Its lease ran out, but by no more than a third of a lease (the other's, 10 ms): it may be a clock's skew.
    f.clock.advance(1010);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect((await other.getRun(ACME, 'run_lost')).status).toBe('running');
    f.clock.advance(1);
    const events = await collectEvents(await other.runEvents(ACME, 'run_lost'));
    expect(events).toStrictEqual([...written, { id: 3, event: { type: 'error', ...SERVER_LOST } }]);
    expect(await f.settled(other, 'run_lost')).toStrictEqual({
      run_id: 'run_lost',
      agent_id: agentId,
      session_id: 's',
      status: 'failed',
      created_at: AT,
      started_at: AT,
      finished_at: new Date(Date.parse(AT) + 1011).toISOString(),
      result: null,
      error: SERVER_LOST,
      last_event_id: 3,
    });
  });
});

describe('closing a service', () => {
  test('waits for its runs up to the grace period', async () => {
    const svc = f.service();
    const agentId = await agent(svc);
    const { run_id } = await svc.startRun(ACME, agentId, { input: 'hi' });
    await f.slow.started();
    const closing = svc.close({ graceMs: 10_000 });
    f.slow.send('done');
    f.slow.finish();
    await closing;
    expect(await svc.getRun(ACME, run_id)).toMatchObject({ status: 'completed', result: { output: 'done' } });
  });

  test('a start still storing its run as the service closes is refused, and its run ends failed server_lost', async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const runs = runStoreView(f.runs, {
      createRun: async (run, options) => {
        const made = await f.runs.createRun(run, options);
        await gate;
        return made;
      },
    });
    const svc = f.service({ runs });
    const agentId = await agent(svc);
    const stored = async () => (await f.runs.listRuns(ACME, agentId, { limit: 10 })).runs;
    const starting = agentHostError(svc.startRun(ACME, agentId, { input: 'hi' }));
    await vi.waitFor(async () => expect(await stored()).toHaveLength(1));
    await svc.close();
    release();
    const refused = await starting;
    expect([refused.code, refused.message]).toStrictEqual([
      'overloaded',
      'The server is shutting down; retry on another',
    ]);
    const error = { code: 'server_lost', message: 'The server running the run shut down' };
    const [run] = await stored();
    expect(run).toMatchObject({ status: 'failed', started_at: null, error, last_event_id: 1 });
    expect(await f.runs.readEvents(run!.run_id, 0, 10)).toStrictEqual([{ id: 1, event: { type: 'error', ...error } }]);
    expect([f.slow.calls, svc.backgroundRunCounts()]).toStrictEqual([0, { queued: 0, running: 0 }]);
  });

  test('without grace stops its runs: failed server_lost, nothing stored; then refuses new ones', async () => {
    const svc = f.service();
    const agentId = await agent(svc);
    const { run_id, session_id } = await svc.startRun(ACME, agentId, { input: 'hi' });
    await f.slow.started();
    f.slow.send('partial');
    await vi.waitFor(async () => expect((await svc.getRun(ACME, run_id)).status).toBe('running'));
    await svc.close();
    const error = { code: 'server_lost', message: 'The server running the run shut down' };
    const run = await svc.getRun(ACME, run_id);
    expect([run.status, run.error]).toStrictEqual(['failed', error]);
    const events = await collectEvents(await svc.runEvents(ACME, run_id));
    expect(events.at(-1)).toStrictEqual({ id: run.last_event_id, event: { type: 'error', ...error } });
    expect(await f.messages(agentId, session_id)).toStrictEqual([]);
    expect(svc.backgroundRunCounts()).toStrictEqual({ queued: 0, running: 0 });
    const refused = await agentHostError(svc.startRun(ACME, agentId, { input: 'later' }));
    expect([refused.code, refused.message]).toStrictEqual([
      'overloaded',
      'The server is shutting down; retry on another',
    ]);
    await expect(svc.close({ graceMs: -1 })).rejects.toThrow('graceMs must be a non-negative number');
  });
});
