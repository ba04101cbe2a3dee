import { describe, expect, test } from 'vitest';
import type { RunStore, StoredRun } from '../../ports/run-store.js';
import { runStoreView, storedRun } from './background-test-kit.js';
import { InProcessRunStore } from './in-process-run-store.js';
import { SERVER_LOST } from './lost-runs.js';
import { RunSweeper } from './run-sweeper.js';

const NOW = 1_000_000;
const LEASE_MS = 300;
/** The grace a sweeper gives a lease past its end: a third of a lease. */
const GRACE_MS = 100;

function run(runId: string, fields: Partial<StoredRun> = {}): StoredRun {
  const owned = { account_id: 'acme', agent_id: 'agent', session_id: `session_${runId}` };
  return storedRun({ run_id: runId, ...owned, lease_until: NOW - 10 * LEASE_MS, ...fields });
}

function sweeper(runs: RunStore, random?: () => number) {
  const options = { runs, now: () => new Date(NOW), leaseMs: LEASE_MS, eventRetentionMs: 10, recordRetentionMs: 20 };
  return new RunSweeper({ ...options, ...(random && { random }) });
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

  test('after a large crash, ends lost runs eight at a time, starting at a random place in the list', async () => {
    const runs = new InProcessRunStore();
    const ids = Array.from({ length: 20 }, (_, i) => `r${String(i).padStart(2, '0')}`);
    // Oldest lease first: the order expiredRuns answers in.
    for (const [i, id] of ids.entries())
      await runs.createRun(run(id, { lease_until: NOW - 10_000 + i }), { maxInFlight: 99 });
    const started: string[] = [];
    let inFlight = 0;
    let most = 0;
    const view = runStoreView(runs, {
      updateRun: async (accountId, runId, from, change, condition) => {
        started.push(runId);
        most = Math.max(most, ++inFlight);
        await new Promise((resolve) => setTimeout(resolve, 5));
        inFlight--;
        return runs.updateRun(accountId, runId, from, change, condition);
      },
    });
    await sweeper(view, () => 0.5).sweep();
    expect(most).toBe(8);
    expect(started).toStrictEqual([...ids.slice(10), ...ids.slice(0, 10)]);
    for (const id of ids) expect((await runs.getRun('acme', id))?.status).toBe('failed');
  });
});
