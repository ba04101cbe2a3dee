import assert from 'node:assert/strict';
import type { StoredRun } from '@agenthost/core';
import { unique } from './fixtures.js';
import { NO_LIMIT, newRun, type RunCases, runResult, someEvents, until } from './run-fixtures.js';

/** Cases on leases (lost runs) and retention (what goes when). */
export function runLifetimeCases(): RunCases {
  return {
    'expiredRuns answers unfinished runs whose lease ran out before now, oldest lease first': async (a, b) => {
      const now = Date.now();
      const account = unique('acct');
      const make = (lease: number, status: StoredRun['status'] = 'queued') =>
        newRun({ account_id: account, lease_until: now + lease, status });
      const [old, older, oldest] = [make(-1_000), make(-2_000, 'running'), make(-3_000)];
      const [fresh, atNow, done] = [make(60_000), make(0), make(-5_000)];
      for (const run of [old, fresh, older, atNow, oldest, done]) await a.createRun(run, NO_LIMIT);
      await a.updateRun(account, done.run_id, ['queued'], { status: 'failed', error: { code: 'x', message: 'x' } });
      const mine = async (limit: number) =>
        (await b.expiredRuns(now, limit)).filter((run) => run.account_id === account);
      assert.deepStrictEqual(await mine(1_000), [oldest, older, old]);
      assert.equal((await b.expiredRuns(now, 2)).length, 2);
      // A renewed lease is no longer expired, nor is a run that finished.
      await a.updateRun(account, oldest.run_id, ['queued', 'running'], { lease_until: now + 60_000 });
      await b.updateRun(account, older.run_id, ['queued', 'running'], { status: 'cancelled' });
      assert.deepStrictEqual(await mine(1_000), [old]);
      for (const run of [old, fresh, atNow, oldest])
        await a.updateRun(account, run.run_id, ['queued', 'running'], { status: 'cancelled' });
    },

    'a change conditioned on an expired lease applies only while the lease is still before that time': async (a, b) => {
      const now = Date.now();
      const run = newRun({ status: 'running', lease_until: now - 1_000 });
      await a.createRun(run, NO_LIMIT);
      const lost = { status: 'failed' as const, error: { code: 'server_lost', message: 'lost' }, last_event_id: 1 };
      // Its owner renews the lease between the sweeper's look and its change: the change does not apply.
      const renewed = await b.updateRun(run.account_id, run.run_id, ['running'], { lease_until: now + 60_000 });
      assert.deepStrictEqual(renewed, { ...run, lease_until: now + 60_000 });
      assert.equal(await a.updateRun(run.account_id, run.run_id, ['running'], lost, { leaseBefore: now }), undefined);
      assert.deepStrictEqual(await b.getRun(run.account_id, run.run_id), renewed);
      // A lease exactly at the bound is not before it; one below it is.
      await b.updateRun(run.account_id, run.run_id, ['running'], { lease_until: now });
      assert.equal(await a.updateRun(run.account_id, run.run_id, ['running'], lost, { leaseBefore: now }), undefined);
      const failed = await b.updateRun(run.account_id, run.run_id, ['running'], lost, { leaseBefore: now + 1 });
      assert.deepStrictEqual(failed, { ...run, lease_until: now, ...lost });
      assert.deepStrictEqual(await a.getRun(run.account_id, run.run_id), failed);
    },

    "a finished run's events go after events_expire_at and the run after expires_at, never before": async (a, b) => {
      const run = newRun();
      await a.createRun(run, NO_LIMIT);
      await a.appendEvents(run.run_id, someEvents(1, 3));
      const t = Date.now();
      const end = {
        status: 'completed' as const,
        result: runResult(run.session_id),
        finished_at: new Date(t).toISOString(),
        last_event_id: 3,
        events_expire_at: t + 1_500,
        expires_at: t + 3_000,
      };
      const finished = await a.updateRun(run.account_id, run.run_id, ['queued'], end);
      const listed = async () => (await b.listRuns(run.account_id, run.agent_id, { limit: 10 })).runs;
      await b.purge(Date.now());
      assert.deepStrictEqual(await b.readEvents(run.run_id, 0, 10), someEvents(1, 3));
      assert.deepStrictEqual([await b.getRun(run.account_id, run.run_id), await listed()], [finished, [finished]]);
      await until(t + 2_000);
      await b.purge(Date.now());
      assert.deepStrictEqual(await b.readEvents(run.run_id, 0, 10), []);
      assert.deepStrictEqual([await b.getRun(run.account_id, run.run_id), await listed()], [finished, [finished]]);
      await until(t + 3_500);
      await b.purge(Date.now());
      assert.deepStrictEqual(await b.readEvents(run.run_id, 0, 10), []);
      assert.deepStrictEqual([await b.getRun(run.account_id, run.run_id), await listed()], [undefined, []]);
    },
  };
}
