import { MemoryStore } from '@agenthost/storage';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import type { AgentService } from '../../agent-service.js';
import type { BackgroundRun, RunEventRecord } from '../../records.js';
import { agentHostError } from '../../testing/rejection.js';
import { type BackgroundFixture, backgroundFixture, collectEvents } from './background-test-kit.js';

const ACME = 'acme';
const AT = '2026-01-01T00:00:00.000Z';
let f: BackgroundFixture;

beforeEach(() => {
  f = backgroundFixture(new MemoryStore());
});
afterEach(() => f.close());

async function agent(service: AgentService, model = 'slow', account = ACME): Promise<string> {
  return (await service.createAgent(account, { name: 'A', instruction: 'I', model })).agent_id;
}

function queued(runId: string, agentId: string, sessionId: string): BackgroundRun {
  return {
    run_id: runId,
    agent_id: agentId,
    session_id: sessionId,
    status: 'queued',
    created_at: AT,
    started_at: null,
    finished_at: null,
    result: null,
    error: null,
    last_event_id: 0,
  };
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

describe('a background run', () => {
  test('answers queued at once, then completes with the result a plain run has, its events numbered 1..n', async () => {
    const svc = f.service();
    const agentId = await agent(svc, 'echo');
    const plain = await svc.runAgent(ACME, agentId, { input: 'hello there' });
    const started = await svc.startRun(ACME, agentId, { input: 'hello there' });
    expect(started).toStrictEqual(queued('run_1', agentId, 'session_2'));
    const events = await collectEvents(await svc.runEvents(ACME, 'run_1'));
    const run = await f.settled(svc, 'run_1');
    const result = { ...plain, session_id: 'session_2' };
    expect(run).toStrictEqual({
      ...started,
      status: 'completed',
      started_at: AT,
      finished_at: AT,
      result,
      last_event_id: events.length,
    });
    expect(events.map((e) => e.id)).toStrictEqual(range(events.length));
    expect(events.at(-1)).toStrictEqual({ id: events.length, event: { type: 'done', result } });
    const text = events.map((e) => (e.event.type === 'text-delta' ? e.event.delta : '')).join('');
    expect(text).toBe(plain.output);
    expect((await f.messages(agentId, 'session_2')).map((m) => m.content)).toStrictEqual(['hello there', plain.output]);
  });

  test('is queued while its session is busy, running once it took it; reading after an id gives exactly the rest', async () => {
    const svc = f.service();
    const agentId = await agent(svc);
    const held = await svc.streamAgent(ACME, agentId, { input: 'first', session_id: 's' });
    const { run_id } = await svc.startRun(ACME, agentId, { input: 'second', session_id: 's' });
    await vi.waitFor(() => expect(svc.backgroundRunCounts()).toStrictEqual({ queued: 1, running: 0 }));
    expect((await svc.getRun(ACME, run_id)).status).toBe('queued');
    await held[Symbol.asyncIterator]().return?.();
    await f.slow.started();
    await vi.waitFor(async () => expect((await svc.getRun(ACME, run_id)).status).toBe('running'));
    expect(svc.backgroundRunCounts()).toStrictEqual({ queued: 0, running: 1 });
    const reader = (await svc.runEvents(ACME, run_id))[Symbol.asyncIterator]();
    f.slow.send('Hel');
    expect((await reader.next()).value).toStrictEqual({ id: 1, event: { type: 'text-delta', delta: 'Hel' } });
    f.slow.send('lo');
    expect((await reader.next()).value).toStrictEqual({ id: 2, event: { type: 'text-delta', delta: 'lo' } });
    f.slow.finish();
    const all = await collectEvents(await svc.runEvents(ACME, run_id));
    expect(all.slice(0, 2)).toStrictEqual([
      { id: 1, event: { type: 'text-delta', delta: 'Hel' } },
      { id: 2, event: { type: 'text-delta', delta: 'lo' } },
    ]);
    expect(all.at(-1)?.event).toMatchObject({ type: 'done', result: { output: 'Hello', session_id: 's' } });
    for (const after of range(all.length))
      expect(await collectEvents(await svc.runEvents(ACME, run_id, { after }))).toStrictEqual(all.slice(after));
    expect(await f.settled(svc, run_id)).toMatchObject({
      status: 'completed',
      started_at: AT,
      last_event_id: all.length,
    });
    expect(svc.backgroundRunCounts()).toStrictEqual({ queued: 0, running: 0 });
  });

  test('is read and cancelled from another server: it stops, ends cancelled and stores nothing of its turn', async () => {
    const a = f.service();
    const b = f.service();
    const agentId = await agent(a);
    const started = await a.startRun(ACME, agentId, { input: 'hi' });
    await f.slow.started();
    const reader = (await b.runEvents(ACME, started.run_id))[Symbol.asyncIterator]();
    f.slow.send('one');
    expect((await reader.next()).value).toStrictEqual({ id: 1, event: { type: 'text-delta', delta: 'one' } });
    const cancelled = await b.cancelRun(ACME, started.run_id);
    const error = { code: 'cancelled', message: 'The run was cancelled' };
    expect(cancelled).toStrictEqual({
      ...started,
      status: 'cancelled',
      started_at: AT,
      finished_at: AT,
      error,
      last_event_id: 2,
    });
    const rest: RunEventRecord[] = [];
    for (let next = await reader.next(); !next.done; next = await reader.next()) rest.push(next.value);
    expect(rest).toStrictEqual([{ id: 2, event: { type: 'error', ...error } }]);
    expect(f.slow.aborted).toBe(true);
    expect(await f.messages(agentId, started.session_id)).toStrictEqual([]);
    expect(await f.store.getSession({ accountId: ACME, agentId, sessionId: started.session_id })).toBeUndefined();
    await vi.waitFor(() => expect(a.backgroundRunCounts()).toStrictEqual({ queued: 0, running: 0 }));
    expect(await b.cancelRun(ACME, started.run_id)).toStrictEqual(cancelled);
  });

  test('cancelled while it waits for its session, it never starts', async () => {
    const svc = f.service();
    const agentId = await agent(svc);
    const held = await svc.streamAgent(ACME, agentId, { input: 'first', session_id: 's' });
    const started = await svc.startRun(ACME, agentId, { input: 'second', session_id: 's' });
    const error = { code: 'cancelled', message: 'The run was cancelled' };
    expect(await svc.cancelRun(ACME, started.run_id)).toStrictEqual({
      ...started,
      status: 'cancelled',
      finished_at: AT,
      error,
      last_event_id: 1,
    });
    expect(await collectEvents(await svc.runEvents(ACME, started.run_id))).toStrictEqual([
      { id: 1, event: { type: 'error', ...error } },
    ]);
    await held[Symbol.asyncIterator]().return?.();
    expect(f.slow.calls).toBe(0);
  });

  test('beyond the in-flight limit of its account it is refused (429) and nothing is stored', async () => {
    const svc = f.service({ backgroundRuns: { maxInFlight: 1 } });
    const agentId = await agent(svc);
    const first = await svc.startRun(ACME, agentId, { input: 'one' });
    const refused = await agentHostError(svc.startRun(ACME, agentId, { input: 'two' }));
    expect([refused.code, refused.message]).toStrictEqual([
      'rate_limited',
      'The account has 1 background runs queued or running, the most it may have; retry when one has finished',
    ]);
    expect((await svc.listRuns(ACME, agentId)).runs.map((r) => r.run_id)).toStrictEqual([first.run_id]);
    const other = await agent(svc, 'echo', 'other');
    expect((await svc.startRun('other', other, { input: 'x' })).status).toBe('queued');
    await f.slow.started();
    f.slow.finish();
    await f.settled(svc, first.run_id);
    expect((await svc.startRun(ACME, await agent(svc, 'echo'), { input: 'three' })).status).toBe('queued');
  });

  test('refuses a missing agent, another account, and bad input before storing anything', async () => {
    const svc = f.service();
    const agentId = await agent(svc, 'echo');
    expect((await agentHostError(svc.startRun(ACME, 'nope', { input: 'x' }))).code).toBe('not_found');
    expect((await agentHostError(svc.startRun('other', agentId, { input: 'x' }))).code).toBe('not_found');
    const bad = await agentHostError(svc.startRun(ACME, agentId, { input: '' }));
    expect(bad.code).toBe('invalid_input');
    const history = await agentHostError(
      svc.startRun(ACME, agentId, { input: 'x' }, { history: [{ role: 'x' }] as never }),
    );
    expect(Object.keys(history.details ?? {})).toStrictEqual(['history']);
    expect(await svc.listRuns(ACME, agentId)).toStrictEqual({ runs: [], next_cursor: null });
  });
});
