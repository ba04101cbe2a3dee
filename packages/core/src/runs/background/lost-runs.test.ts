import { describe, expect, test } from 'vitest';
import type { StoredRun } from '../../ports/run-store.js';
import { InProcessRunStore } from './in-process-run-store.js';
import { markLost, SERVER_LOST } from './lost-runs.js';

const run: StoredRun = {
  run_id: 'r',
  account_id: 'a',
  agent_id: 'g',
  session_id: 's',
  status: 'running',
  created_at: '2026-01-01T00:00:00.000Z',
  started_at: '2026-01-01T00:00:00.000Z',
  finished_at: null,
  result: null,
  error: null,
  last_event_id: 0,
  cancel_requested: false,
  owner: 'gone',
  lease_until: 0,
  events_expire_at: null,
  expires_at: null,
};
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

  test('leaves a run that finished meanwhile as it is', async () => {
    const runs = new InProcessRunStore();
    await runs.createRun(run, { maxInFlight: 1 });
    await runs.updateRun('a', 'r', ['running'], { status: 'cancelled' });
    expect(await markLost(runs, run, limits)).toBe(false);
    expect(await runs.getRun('a', 'r')).toStrictEqual({ ...run, status: 'cancelled' });
    expect(await runs.readEvents('r', 0, 10)).toStrictEqual([]);
  });
});
