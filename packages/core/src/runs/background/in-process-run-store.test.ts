import { describe, expect, test } from 'vitest';
import type { RunSignal, StoredRun } from '../../ports/run-store.js';
import { InProcessRunStore } from './in-process-run-store.js';

function run(runId: string, fields: Partial<StoredRun> = {}): StoredRun {
  return {
    run_id: runId,
    account_id: 'acme',
    agent_id: 'agent_1',
    session_id: `session_${runId}`,
    status: 'queued',
    created_at: '2026-01-01T00:00:00.000Z',
    started_at: null,
    finished_at: null,
    result: null,
    error: null,
    last_event_id: 0,
    cancel_requested: false,
    owner: 'server_a',
    lease_until: 10_000,
    events_expire_at: null,
    expires_at: null,
    ...fields,
  };
}

const text = (id: number, delta: string) => ({ id, event: { type: 'text-delta' as const, delta } });

describe('InProcessRunStore', () => {
  test('keeps copies: neither what was given nor what was read changes what is stored', async () => {
    const store = new InProcessRunStore();
    const given = run('r1');
    expect(await store.createRun(given, { maxInFlight: 1 })).toBe(true);
    given.status = 'failed';
    const read = await store.getRun('acme', 'r1');
    read!.status = 'completed';
    const events = [text(1, 'a')];
    await store.appendEvents('r1', events);
    events[0]!.event.delta = 'changed';
    (await store.readEvents('r1', 0, 10))[0]!.event = { type: 'text-delta', delta: 'x' };
    expect(await store.getRun('acme', 'r1')).toStrictEqual(run('r1'));
    expect(await store.readEvents('r1', 0, 10)).toStrictEqual([text(1, 'a')]);
  });

  test("another account's run is not found, read or changed", async () => {
    const store = new InProcessRunStore();
    await store.createRun(run('r1'), { maxInFlight: 1 });
    expect(await store.getRun('other', 'r1')).toBeUndefined();
    expect(await store.updateRun('other', 'r1', ['queued'], { status: 'running' })).toBeUndefined();
    expect(await store.listRuns('other', 'agent_1', { limit: 10 })).toStrictEqual({ runs: [] });
    expect(await store.getRun('acme', 'r1')).toStrictEqual(run('r1'));
  });

  test('refuses a run past the in-flight limit of its account; a finished run no longer counts', async () => {
    const store = new InProcessRunStore();
    expect(await store.createRun(run('r1'), { maxInFlight: 2 })).toBe(true);
    expect(await store.createRun(run('r2', { status: 'running' }), { maxInFlight: 2 })).toBe(true);
    expect(await store.createRun(run('r3'), { maxInFlight: 2 })).toBe(false);
    expect(await store.createRun(run('o1', { account_id: 'other' }), { maxInFlight: 2 })).toBe(true);
    expect(await store.getRun('acme', 'r3')).toBeUndefined();
    await store.updateRun('acme', 'r1', ['queued', 'running'], { status: 'completed' });
    expect(await store.createRun(run('r3'), { maxInFlight: 2 })).toBe(true);
    await expect(store.createRun(run('r3'), { maxInFlight: 9 })).rejects.toThrow('A run with the id r3 exists');
  });

  test('updateRun changes a run only from one of the given statuses', async () => {
    const store = new InProcessRunStore();
    await store.createRun(run('r1'), { maxInFlight: 1 });
    expect(await store.updateRun('acme', 'r1', ['running'], { status: 'completed' })).toBeUndefined();
    const started = await store.updateRun('acme', 'r1', ['queued'], { status: 'running', started_at: 'now' });
    expect(started).toStrictEqual(run('r1', { status: 'running', started_at: 'now' }));
    expect(await store.updateRun('acme', 'r1', ['queued'], { status: 'running' })).toBeUndefined();
    expect(await store.updateRun('acme', 'nope', ['queued'], { status: 'running' })).toBeUndefined();
    expect(await store.getRun('acme', 'r1')).toStrictEqual(started);
  });

  test('keeps events in order, reads those after an id, and refuses an id that does not follow exactly', async () => {
    const store = new InProcessRunStore();
    await store.createRun(run('r1'), { maxInFlight: 1 });
    await store.appendEvents('r1', [text(1, 'a'), text(2, 'b')]);
    await store.appendEvents('r1', [text(3, 'c')]);
    expect(await store.readEvents('r1', 0, 2)).toStrictEqual([text(1, 'a'), text(2, 'b')]);
    expect(await store.readEvents('r1', 2, 100)).toStrictEqual([text(3, 'c')]);
    expect(await store.readEvents('r1', 3, 100)).toStrictEqual([]);
    expect(await store.appendEvents('r1', [text(3, 'again')])).toBe(false);
    expect(await store.appendEvents('r1', [text(5, 'e')])).toBe(false);
    expect(await store.appendEvents('nope', [text(1, 'a')])).toBe(false);
    await expect(store.appendEvents('r1', [text(4, 'd'), text(6, 'f')])).rejects.toThrow(
      new TypeError('run r1: event ids must be consecutive whole numbers from 1'),
    );
    expect(await store.readEvents('r1', 0, 100)).toStrictEqual([text(1, 'a'), text(2, 'b'), text(3, 'c')]);
  });

  test("signals reach the run's subscribers until they unsubscribe; a throwing listener harms no one", async () => {
    const store = new InProcessRunStore();
    const seen: RunSignal[] = [];
    const stopThrowing = await store.subscribe('r1', () => {
      throw new Error('listener failed');
    });
    const stop = await store.subscribe('r1', (s) => seen.push(s));
    await store.subscribe('r2', (s) => seen.push(s));
    await store.publish('r1', { type: 'events', id: 2 });
    await store.publish('r1', { type: 'cancel' });
    await stop();
    await store.publish('r1', { type: 'end' });
    await stopThrowing();
    expect(seen).toStrictEqual([{ type: 'events', id: 2 }, { type: 'cancel' }]);
  });

  test('lists runs newest first, by creation time then id, a page at a time', async () => {
    const store = new InProcessRunStore();
    const at = (s: number) => `2026-01-01T00:00:0${s}.000Z`;
    for (const [id, s] of [
      ['a', 1],
      ['b', 3],
      ['c', 2],
      ['d', 3],
    ] as const)
      await store.createRun(run(id, { created_at: at(s), status: 'completed' }), { maxInFlight: 9 });
    await store.createRun(run('x', { agent_id: 'agent_2' }), { maxInFlight: 9 });
    const first = await store.listRuns('acme', 'agent_1', { limit: 3 });
    expect(first).toStrictEqual({
      runs: ['d', 'b', 'c'].map((id) => expect.objectContaining({ run_id: id })),
      next: Date.parse(at(2)),
    });
    expect(await store.listRuns('acme', 'agent_1', { limit: 3, before: first.next! })).toStrictEqual({
      runs: [expect.objectContaining({ run_id: 'a' })],
    });
  });

  test("a page never splits one millisecond's runs", async () => {
    const store = new InProcessRunStore();
    for (const id of ['a', 'b', 'c']) await store.createRun(run(id, { status: 'failed' }), { maxInFlight: 9 });
    await store.createRun(run('old', { created_at: '2025-12-31T00:00:00.000Z' }), { maxInFlight: 9 });
    const page = await store.listRuns('acme', 'agent_1', { limit: 1 });
    expect(page.runs.map((r) => r.run_id)).toStrictEqual(['c', 'b', 'a']);
    expect(page.next).toBe(Date.parse('2026-01-01T00:00:00.000Z'));
    const rest = await store.listRuns('acme', 'agent_1', { limit: 1, before: page.next! });
    expect(rest).toStrictEqual({ runs: [run('old', { created_at: '2025-12-31T00:00:00.000Z' })] });
  });

  test('expiredRuns lists unfinished runs whose lease ran out, oldest lease first', async () => {
    const store = new InProcessRunStore();
    await store.createRun(run('late', { lease_until: 300 }), { maxInFlight: 9 });
    await store.createRun(run('early', { lease_until: 100, status: 'running' }), { maxInFlight: 9 });
    await store.createRun(run('done', { lease_until: 50, status: 'completed' }), { maxInFlight: 9 });
    await store.createRun(run('alive', { lease_until: 1000 }), { maxInFlight: 9 });
    expect((await store.expiredRuns(500, 10)).map((r) => r.run_id)).toStrictEqual(['early', 'late']);
    expect((await store.expiredRuns(500, 1)).map((r) => r.run_id)).toStrictEqual(['early']);
    expect(await store.expiredRuns(100, 10)).toStrictEqual([]);
  });

  test("purge drops a finished run's events after their retention, and the run after its own", async () => {
    const store = new InProcessRunStore();
    await store.createRun(run('r1'), { maxInFlight: 9 });
    await store.appendEvents('r1', [text(1, 'a')]);
    await store.updateRun('acme', 'r1', ['queued'], { status: 'completed', events_expire_at: 100, expires_at: 200 });
    await store.purge(99);
    expect(await store.readEvents('r1', 0, 10)).toStrictEqual([text(1, 'a')]);
    await store.purge(100);
    expect(await store.readEvents('r1', 0, 10)).toStrictEqual([]);
    expect(await store.getRun('acme', 'r1')).toMatchObject({ status: 'completed' });
    await store.purge(200);
    expect(await store.getRun('acme', 'r1')).toBeUndefined();
    expect(await store.listRuns('acme', 'agent_1', { limit: 10 })).toStrictEqual({ runs: [] });
  });

  test('keeps at most maxFinishedRuns finished runs, dropping the one that finished first; unfinished ones stay', async () => {
    const store = new InProcessRunStore({ maxFinishedRuns: 2 });
    for (const id of ['r1', 'r2', 'r3', 'r4']) await store.createRun(run(id), { maxInFlight: 9 });
    await store.appendEvents('r1', [text(1, 'a')]);
    for (const id of ['r2', 'r1', 'r3'])
      await store.updateRun('acme', id, ['queued'], { status: 'failed', events_expire_at: 9e15, expires_at: 9e15 });
    const ids = async () => (await store.listRuns('acme', 'agent_1', { limit: 10 })).runs.map((r) => r.run_id).sort();
    expect(await ids()).toStrictEqual(['r1', 'r3', 'r4']);
    expect(await store.getRun('acme', 'r2')).toBeUndefined();
    expect(await store.readEvents('r1', 0, 10)).toStrictEqual([text(1, 'a')]);
    // A run stored finished counts as finishing then.
    await store.createRun(run('r5', { status: 'completed' }), { maxInFlight: 9 });
    expect(await ids()).toStrictEqual(['r3', 'r4', 'r5']);
    expect([await store.getRun('acme', 'r1'), await store.readEvents('r1', 0, 10)]).toStrictEqual([undefined, []]);
    expect((await store.expiredRuns(Number.MAX_SAFE_INTEGER, 10)).map((r) => r.run_id)).toStrictEqual(['r4']);
    // r4 still counts against the limit; the finished ones do not.
    expect(await store.createRun(run('r6'), { maxInFlight: 1 })).toBe(false);
    expect(await store.createRun(run('r6'), { maxInFlight: 2 })).toBe(true);
  });

  test.each([0, -1, 1.5, Number.NaN])('refuses maxFinishedRuns %s', (maxFinishedRuns) => {
    expect(() => new InProcessRunStore({ maxFinishedRuns })).toThrow(
      new TypeError(`InProcessRunStore: maxFinishedRuns must be a whole number from 1, got ${maxFinishedRuns}`),
    );
  });
});
