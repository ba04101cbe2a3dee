import { describe, expect, test } from 'vitest';
import type { StoredRun } from '../../ports/run-store.js';
import { runResult, storedRun } from './background-test-kit.js';
import { InProcessRunStore } from './in-process-run-store.js';
import { markLost, SERVER_LOST } from './lost-runs.js';

const run: StoredRun = storedRun();
const limits = { now: 1000, eventRetentionMs: 10, recordRetentionMs: 20 };

describe('markLost', () => {
  test('of two servers that find a run lost at once, one ends it, with one error event after its last', async () => {
    const runs = new InProcessRunStore();
    await runs.createRun(run, { maxInFlight: 1 });
    const deltas = [1, 2, 3].map((id) => ({ id, event: { type: 'text-delta' as const, delta: `${id}` } }));
    await runs.appendEvents('r', deltas);
    const signals: unknown[] = [];
    await runs.subscribe('r', (s) => signals.push(s));
    const ended = await Promise.all([markLost(runs, run, limits), markLost(runs, run, limits)]);
    expect(ended.sort()).toStrictEqual([false, true]);
    expect(await runs.readEvents('r', 0, 10)).toStrictEqual([
      ...deltas,
      { id: 4, event: { type: 'error', ...SERVER_LOST } },
    ]);
    expect(await runs.getRun('a', 'r')).toStrictEqual({
      ...run,
      status: 'failed',
      error: SERVER_LOST,
      finished_at: '1970-01-01T00:00:01.000Z',
      last_event_id: 4,
      events_expire_at: 1010,
      expires_at: 1020,
    });
    expect(signals).toStrictEqual([{ type: 'events', id: 4 }, { type: 'end' }]);
  });

  test('leaves a run whose owner renewed its lease since it was found lost as it is', async () => {
    const runs = new InProcessRunStore();
    await runs.createRun(run, { maxInFlight: 1 });
    const [found] = await runs.expiredRuns(limits.now, 10);
    await runs.updateRun('a', 'r', ['queued', 'running'], { lease_until: limits.now + 5 });
    expect(await markLost(runs, found!, limits)).toBe(false);
    expect(await runs.getRun('a', 'r')).toStrictEqual({ ...run, lease_until: limits.now + 5 });
    expect(await runs.readEvents('r', 0, 10)).toStrictEqual([]);
  });

  test('ends a run whose last stored event is done with that result: its turn was stored', async () => {
    const runs = new InProcessRunStore();
    await runs.createRun(run, { maxInFlight: 1 });
    const result = runResult();
    const events = [
      { id: 1, event: { type: 'text-delta' as const, delta: 'answer' } },
      { id: 2, event: { type: 'done' as const, result } },
    ];
    await runs.appendEvents('r', events);
    expect(await markLost(runs, run, limits)).toBe(true);
    expect(await runs.getRun('a', 'r')).toStrictEqual({
      ...run,
      status: 'completed',
      result,
      finished_at: '1970-01-01T00:00:01.000Z',
      last_event_id: 2,
      events_expire_at: 1010,
      expires_at: 1020,
    });
    expect(await runs.readEvents('r', 0, 10)).toStrictEqual(events);
  });

  test('ends a run whose last stored event is an error with that error, adding none', async () => {
    const runs = new InProcessRunStore();
    await runs.createRun(run, { maxInFlight: 1 });
    const cancelled = { code: 'cancelled', message: 'The run was cancelled' };
    await runs.appendEvents('r', [{ id: 1, event: { type: 'error', ...cancelled } }]);
    expect(await markLost(runs, run, limits)).toBe(true);
    expect(await runs.getRun('a', 'r')).toMatchObject({ status: 'cancelled', error: cancelled, last_event_id: 1 });
    expect(await runs.readEvents('r', 0, 10)).toHaveLength(1);
  });

  test('leaves a run that finished meanwhile as it is', async () => {
    const runs = new InProcessRunStore();
    await runs.createRun(run, { maxInFlight: 1 });
    await runs.updateRun('a', 'r', ['running'], { status: 'cancelled' });
    expect(await markLost(runs, run, limits)).toBe(false);
    expect(await runs.getRun('a', 'r')).toStrictEqual({ ...run, status: 'cancelled' });
    expect(await runs.readEvents('r', 0, 10)).toStrictEqual([]);
  });
});
