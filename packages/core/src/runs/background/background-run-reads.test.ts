import { MemoryStore } from '@agenthost/storage';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import type { AgentService } from '../../agent-service.js';
import { agentHostError } from '../../testing/rejection.js';
import { type BackgroundFixture, backgroundFixture, collectEvents, runStoreView } from './background-test-kit.js';

const ACME = 'acme';
let f: BackgroundFixture;

beforeEach(() => {
  f = backgroundFixture(new MemoryStore());
});
afterEach(() => f.close());

async function agent(service: AgentService, model = 'echo'): Promise<string> {
  return (await service.createAgent(ACME, { name: 'A', instruction: 'I', model })).agent_id;
}

describe('reading background runs', () => {
  test("another account's run is not found on get, events, cancel and list, as an unknown one", async () => {
    const svc = f.service();
    const agentId = await agent(svc);
    const { run_id } = await svc.startRun(ACME, agentId, { input: 'hi' });
    const refusals = await Promise.all([
      agentHostError(svc.getRun('other', run_id)),
      agentHostError(svc.runEvents('other', run_id)),
      agentHostError(svc.cancelRun('other', run_id)),
      agentHostError(svc.listRuns('other', agentId)),
      agentHostError(svc.getRun(ACME, 'run_nope')),
      agentHostError(svc.runEvents(ACME, 'x'.repeat(129))),
    ]);
    expect(refusals.map((e) => [e.code, e.message])).toStrictEqual([
      ['not_found', 'Run not found'],
      ['not_found', 'Run not found'],
      ['not_found', 'Run not found'],
      ['not_found', 'Agent not found'],
      ['not_found', 'Run not found'],
      ['not_found', 'Run not found'],
    ]);
    expect((await f.settled(svc, run_id)).status).toBe('completed');
  });

  test('lists an agent’s runs newest first, a page at a time', async () => {
    const svc = f.service();
    const agentId = await agent(svc);
    const ids: string[] = [];
    for (const input of ['one', 'two', 'three']) {
      ids.push((await svc.startRun(ACME, agentId, { input })).run_id);
      f.clock.advance(1000);
    }
    await Promise.all(ids.map((id) => f.settled(svc, id)));
    const first = await svc.listRuns(ACME, agentId, { limit: 2 });
    expect(first.runs).toStrictEqual([await svc.getRun(ACME, ids[2]!), await svc.getRun(ACME, ids[1]!)]);
    expect(first.next_cursor).toStrictEqual(expect.any(String));
    const second = await svc.listRuns(ACME, agentId, { limit: 2, cursor: first.next_cursor! });
    expect(second).toStrictEqual({ runs: [await svc.getRun(ACME, ids[0]!)], next_cursor: null });
    const bad = await Promise.all([
      agentHostError(svc.listRuns(ACME, agentId, { cursor: 'nope' })),
      agentHostError(svc.listRuns(ACME, agentId, { limit: 0 })),
    ]);
    expect(bad.map((e) => Object.keys(e.details ?? {}))).toStrictEqual([['cursor'], ['limit']]);
  });

  test('refuses an `after` that is not a whole number from 0', async () => {
    const svc = f.service();
    const agentId = await agent(svc);
    const { run_id } = await svc.startRun(ACME, agentId, { input: 'hi' });
    for (const after of [-1, 1.5, Number.NaN, 2 ** 53, '3' as never]) {
      const error = await agentHostError(svc.runEvents(ACME, run_id, { after }));
      expect([error.code, error.details]).toStrictEqual([
        'invalid_input',
        { after: { message: 'after must be a whole number from 0', path: ['after'] } },
      ]);
    }
  });

  test('a finished run whose stored events do not end with its last still ends with it, after them', async () => {
    const svc = f.service();
    const at = '2026-01-01T00:00:00.000Z';
    const run = {
      run_id: 'run_x',
      account_id: ACME,
      agent_id: 'agent_x',
      session_id: 's',
      status: 'running' as const,
      created_at: at,
      started_at: at,
      finished_at: null,
      result: null,
      error: null,
      last_event_id: 0,
      cancel_requested: false,
      owner: 'o',
      lease_until: Date.parse(at) + 60_000,
      events_expire_at: null,
      expires_at: null,
    };
    await f.runs.createRun(run, { maxInFlight: 9 });
    const deltas = [1, 2, 3].map((id) => ({ id, event: { type: 'text-delta' as const, delta: `${id}` } }));
    await f.runs.appendEvents('run_x', deltas);
    // Its record names a last event id the stored events went past (a write that failed but was stored).
    const failure = {
      code: 'storage_unavailable',
      message: 'The run store failed during the run; the run was stopped',
    };
    await f.runs.updateRun(ACME, 'run_x', ['running'], { status: 'failed', error: failure, last_event_id: 2 });
    const error = { id: 4, event: { type: 'error', ...failure } };
    expect(await collectEvents(await svc.runEvents(ACME, 'run_x'))).toStrictEqual([...deltas, error]);
    expect(await collectEvents(await svc.runEvents(ACME, 'run_x', { after: 1 }))).toStrictEqual([
      ...deltas.slice(1),
      error,
    ]);
    expect(await collectEvents(await svc.runEvents(ACME, 'run_x', { after: 3 }))).toStrictEqual([error]);
    expect(await collectEvents(await svc.runEvents(ACME, 'run_x', { after: 4 }))).toStrictEqual([]);
  });

  test('an append that failed but was stored: the run ends with its error event just after the stored ones', async () => {
    let failed = false;
    const runs = runStoreView(f.runs, {
      appendEvents: async (runId, events) => {
        const stored = await f.runs.appendEvents(runId, events);
        if (failed || events[0]?.event.type !== 'text-delta') return stored;
        failed = true;
        throw new Error('timed out');
      },
    });
    const svc = f.service({ runs });
    const agentId = await agent(svc, 'slow');
    const { run_id, session_id } = await svc.startRun(ACME, agentId, { input: 'hi' });
    await f.slow.started();
    f.slow.send('one');
    const run = await f.settled(svc, run_id);
    const failure = {
      code: 'storage_unavailable',
      message: 'The run store failed during the run; the run was stopped',
    };
    expect([run.status, run.error, run.last_event_id]).toStrictEqual(['failed', failure, 2]);
    expect(await collectEvents(await svc.runEvents(ACME, run_id))).toStrictEqual([
      { id: 1, event: { type: 'text-delta', delta: 'one' } },
      { id: 2, event: { type: 'error', ...failure } },
    ]);
    expect(await f.messages(agentId, session_id)).toStrictEqual([]);
  });

  test('an account may have maxEventReaders readings open on a server; one more is refused (429) until one ends', async () => {
    const svc = f.service({ backgroundRuns: { maxEventReaders: 2 } });
    const agentId = await agent(svc, 'slow');
    const { run_id } = await svc.startRun(ACME, agentId, { input: 'hi' });
    const first = (await svc.runEvents(ACME, run_id))[Symbol.asyncIterator]();
    const second = await svc.runEvents(ACME, run_id);
    const refused = await agentHostError(svc.runEvents(ACME, run_id));
    expect([refused.code, refused.message, refused.retryAfterSeconds]).toStrictEqual([
      'rate_limited',
      'The account has 2 run event streams open on this server, the most it may have; close one or retry later',
      1,
    ]);
    // Another server, and another account, have their own.
    await f.service().runEvents(ACME, run_id);
    const otherAgent = (await svc.createAgent('other', { name: 'A', instruction: 'I', model: 'echo' })).agent_id;
    const other = await svc.startRun('other', otherAgent, { input: 'x' });
    await svc.runEvents('other', other.run_id);
    // A reading given up (returned) frees its place; so does one that ran to its end.
    await first.return?.();
    const third = await svc.runEvents(ACME, run_id);
    expect((await agentHostError(svc.runEvents(ACME, run_id))).code).toBe('rate_limited');
    await f.slow.started();
    f.slow.send('one');
    f.slow.finish();
    expect((await collectEvents(second)).at(-1)?.event.type).toBe('done');
    expect((await collectEvents(third)).at(-1)?.event.type).toBe('done');
    expect(await collectEvents(await svc.runEvents(ACME, run_id, { after: 2 }))).toStrictEqual([]);
    expect(await collectEvents(await svc.runEvents(ACME, run_id, { after: 2 }))).toStrictEqual([]);
  });

  test('closing a service ends the readings open on it, of a run that goes on elsewhere', async () => {
    const owner = f.service();
    const reader = f.service();
    const agentId = await agent(owner, 'slow');
    const { run_id } = await owner.startRun(ACME, agentId, { input: 'hi' });
    await f.slow.started();
    f.slow.send('one');
    const reading = collectEvents(await reader.runEvents(ACME, run_id));
    await vi.waitFor(async () => expect(await f.runs.readEvents(run_id, 0, 10)).toHaveLength(1));
    await reader.close();
    const timeout = new Promise((resolve) => setTimeout(() => resolve('still reading'), 2000));
    expect(await Promise.race([reading, timeout])).toStrictEqual([
      { id: 1, event: { type: 'text-delta', delta: 'one' } },
    ]);
    expect((await owner.getRun(ACME, run_id)).status).toBe('running');
    f.slow.finish();
    expect((await f.settled(owner, run_id)).status).toBe('completed');
  });

  test('every event is stored, and told of, before the change that finishes the run, then its end', async () => {
    const svc = f.service();
    const agentId = await agent(svc);
    const log: string[] = [];
    const { runs } = f;
    const append = runs.appendEvents.bind(runs);
    runs.appendEvents = (runId, events) => {
      log.push(`append ${events.map((e) => e.id).join(',')}`);
      return append(runId, events);
    };
    const update = runs.updateRun.bind(runs);
    runs.updateRun = (accountId, runId, from, change) => {
      if (change.status) log.push(`status ${change.status} last ${change.last_event_id ?? '-'}`);
      return update(accountId, runId, from, change);
    };
    const { run_id } = await svc.startRun(ACME, agentId, { input: 'hi there' });
    await runs.subscribe(run_id, (s) => log.push(s.type === 'events' ? `events ${s.id}` : s.type));
    const run = await f.settled(svc, run_id);
    await vi.waitFor(() => expect(log.at(-1)).toBe('end'));
    const last = run.last_event_id;
    expect(log.slice(-4)).toStrictEqual([`append ${last}`, `events ${last}`, `status completed last ${last}`, 'end']);
    expect(log[0]).toBe('status running last -');
    expect(log.filter((l) => l.startsWith('append')).length).toBeGreaterThan(0);
  });

  test('a second run on a new background run’s session waits for it and sees its turn', async () => {
    const svc = f.service();
    const agentId = await agent(svc, 'slow');
    const first = await svc.startRun(ACME, agentId, { input: 'first' });
    await f.slow.started();
    const second = await svc.startRun(ACME, agentId, { input: 'second', session_id: first.session_id });
    await vi.waitFor(() => expect(svc.backgroundRunCounts()).toStrictEqual({ queued: 1, running: 1 }));
    f.slow.send('one');
    f.slow.finish();
    await f.slow.started(2);
    f.slow.send('two');
    f.slow.finish();
    expect((await f.settled(svc, second.run_id)).status).toBe('completed');
    const prompt = f.slow.model.doStreamCalls[1]?.prompt.map((m) => m.role);
    expect(prompt).toStrictEqual(['system', 'user', 'assistant', 'user']);
    expect((await f.messages(agentId, first.session_id)).map((m) => m.content)).toStrictEqual([
      'first',
      'one',
      'second',
      'two',
    ]);
    expect((await collectEvents(await svc.runEvents(ACME, first.run_id))).at(-1)?.event.type).toBe('done');
  });

  test('a server whose store cannot subscribe or publish now still reads every event and cancels, by polling', async () => {
    // The owner learns of the cancel from its lease renewal (every third of a lease), as no signal comes.
    const owner = f.service({ backgroundRuns: { leaseMs: 900 } });
    const down = () => Promise.reject(new Error('signal connection reconnecting'));
    const reader = f.service({ runs: runStoreView(f.runs, { subscribe: down, publish: down }) });
    const agentId = await agent(owner, 'slow');
    const first = await owner.startRun(ACME, agentId, { input: 'one' });
    await f.slow.started(1);
    f.slow.send('Hel');
    f.slow.send('lo');
    f.slow.finish();
    const events = await collectEvents(await reader.runEvents(ACME, first.run_id));
    const text = events.map(({ event }) => (event.type === 'text-delta' ? event.delta : '')).join('');
    expect({ text, last: events.at(-1)?.event.type }).toStrictEqual({ text: 'Hello', last: 'done' });
    expect(events.map((e) => e.id)).toStrictEqual(events.map((_, i) => i + 1));
    const second = await owner.startRun(ACME, agentId, { input: 'two' });
    await f.slow.started(2);
    const cancelled = await reader.cancelRun(ACME, second.run_id);
    expect({ status: cancelled.status, error: cancelled.error }).toStrictEqual({
      status: 'cancelled',
      error: { code: 'cancelled', message: 'The run was cancelled' },
    });
  });
});
