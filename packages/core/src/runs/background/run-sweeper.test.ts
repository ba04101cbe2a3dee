import { describe, expect, test } from 'vitest';
import type { StoredRun } from '../../ports/run-store.js';
import { InProcessRunStore } from './in-process-run-store.js';
import { SERVER_LOST } from './lost-runs.js';
import { RunSweeper } from './run-sweeper.js';

const NOW = 1_000_000;
const LEASE_MS = 300;
/** The grace a sweeper gives a lease past its end: a third of a lease. */
const GRACE_MS = 100;

function run(runId: string, fields: Partial<StoredRun> = {}): StoredRun {
  return {
    run_id: runId,
    account_id: 'acme',
    agent_id: 'agent',
    session_id: `session_${runId}`,
    status: 'running',
    created_at: '2026-01-01T00:00:00.000Z',
    started_at: '2026-01-01T00:00:00.000Z',
    finished_at: null,
    result: null,
    error: null,
    last_event_id: 0,
    cancel_requested: false,
    owner: 'gone',
    lease_until: NOW - 10 * LEASE_MS,
    events_expire_at: null,
    expires_at: null,
    ...fields,
  };
}

function sweeper(runs: InProcessRunStore) {
  const options = { runs, now: () => new Date(NOW), leaseMs: LEASE_MS, eventRetentionMs: 10, recordRetentionMs: 20 };
  return new RunSweeper(options);
}

describe('RunSweeper', () => {
  test('takes a run for lost only once its lease ran out more than a third of a lease ago (clock skew)', async () => {
    const runs = new InProcessRunStore();
    await runs.createRun(run('within', { lease_until: NOW - GRACE_MS }), { maxInFlight: 9 });
    await runs.createRun(run('past', { lease_until: NOW - GRACE_MS - 1 }), { maxInFlight: 9 });
    await sweeper(runs).sweep();
    expect((await runs.getRun('acme', 'within'))?.status).toBe('running');
    expect(await runs.getRun('acme', 'past')).toMatchObject({ status: 'failed', error: SERVER_LOST, last_event_id: 1 });
  });
});
