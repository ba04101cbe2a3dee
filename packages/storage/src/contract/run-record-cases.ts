import assert from 'node:assert/strict';
import type { RunStatus, StoredRun } from '@agenthost/core';
import { unique } from './fixtures.js';
import { NO_LIMIT, newRun, type RunCases, runResult } from './run-fixtures.js';

const UNFINISHED: RunStatus[] = ['queued', 'running'];

/** The change that finishes a run as `status` (`completed` with a result, others with an error). */
function finish(run: StoredRun, status: RunStatus = 'completed', marker = 'x') {
  const done = status === 'completed' || status === 'requires_approval';
  return {
    status,
    finished_at: new Date().toISOString(),
    result: done ? { ...runResult(run.session_id), output: marker } : null,
    error: done ? null : { code: status, message: `ended: ${marker}` },
    last_event_id: 3,
  };
}

/** Cases on storing, reading and changing run records. */
export function runRecordCases(): RunCases {
  return {
    'a new run reads back as it was stored, from every store': async (a, b) => {
      const run = newRun();
      assert.equal(await a.createRun(run, NO_LIMIT), true);
      assert.deepStrictEqual(await a.getRun(run.account_id, run.run_id), run);
      assert.deepStrictEqual(await b.getRun(run.account_id, run.run_id), run);
    },

    'an unknown run is undefined and cannot be changed': async (a) => {
      const account = unique('acct');
      assert.equal(await a.getRun(account, unique('run')), undefined);
      assert.equal(await a.updateRun(account, unique('run'), UNFINISHED, { status: 'cancelled' }), undefined);
    },

    'another account neither sees a run nor changes it': async (a, b) => {
      const run = newRun();
      const other = unique('acct');
      await a.createRun(run, NO_LIMIT);
      assert.equal(await b.getRun(other, run.run_id), undefined);
      assert.equal(await b.updateRun(other, run.run_id, UNFINISHED, { status: 'cancelled' }), undefined);
      assert.deepStrictEqual(await b.listRuns(other, run.agent_id, { limit: 10 }), { runs: [] });
      assert.deepStrictEqual(await a.getRun(run.account_id, run.run_id), run);
    },

    'a run id is stored once: creating it again fails and changes nothing': async (a, b) => {
      const run = newRun();
      await a.createRun(run, NO_LIMIT);
      await assert.rejects(b.createRun({ ...run, owner: 'server-b' }, NO_LIMIT));
      assert.deepStrictEqual(await a.getRun(run.account_id, run.run_id), run);
    },

    'records are copies: changing one changes nothing stored': async (a) => {
      const run = newRun();
      const expected = structuredClone(run);
      await a.createRun(run, NO_LIMIT);
      run.status = 'failed';
      const got = await a.getRun(run.account_id, run.run_id);
      got!.owner = 'changed after get';
      (await a.listRuns(run.account_id, run.agent_id, { limit: 10 })).runs[0]!.session_id = 'changed after list';
      const change = { result: runResult(run.session_id) };
      const updated = await a.updateRun(run.account_id, run.run_id, UNFINISHED, change);
      updated!.result!.output = 'changed after update';
      change.result.metadata.tools_used.push('changed after update');
      assert.deepStrictEqual(await a.getRun(run.account_id, run.run_id), {
        ...expected,
        ...{ result: runResult(run.session_id) },
      });
    },

    'updateRun changes a run only from one of the given statuses, and answers the run after it': async (a, b) => {
      const run = newRun();
      await a.createRun(run, NO_LIMIT);
      assert.equal(await b.updateRun(run.account_id, run.run_id, ['running'], { status: 'completed' }), undefined);
      assert.deepStrictEqual(await a.getRun(run.account_id, run.run_id), run);
      const start = {
        status: 'running' as const,
        started_at: new Date().toISOString(),
        lease_until: Date.now() + 90_000,
      };
      const running = { ...run, ...start };
      assert.deepStrictEqual(await b.updateRun(run.account_id, run.run_id, ['queued'], start), running);
      const end = { ...finish(run), events_expire_at: Date.now() + 60_000, expires_at: Date.now() + 120_000 };
      const finished = { ...running, ...end };
      assert.deepStrictEqual(await a.updateRun(run.account_id, run.run_id, UNFINISHED, end), finished);
      assert.equal(await b.updateRun(run.account_id, run.run_id, UNFINISHED, { cancel_requested: true }), undefined);
      assert.deepStrictEqual(await b.getRun(run.account_id, run.run_id), finished);
    },

    'of concurrent updates from one status, exactly one wins': async (a, b) => {
      const statuses: RunStatus[] = ['completed', 'failed', 'cancelled', 'requires_approval'];
      for (let round = 0; round < 5; round++) {
        const run = newRun({ status: 'running' });
        await a.createRun(run, NO_LIMIT);
        const answers = await Promise.all(
          Array.from({ length: 8 }, (_, i) =>
            (i % 2 ? b : a).updateRun(run.account_id, run.run_id, ['running'], finish(run, statuses[i % 4], `${i}`)),
          ),
        );
        const winners = answers.filter((answer) => answer !== undefined);
        assert.equal(winners.length, 1, `round ${round}: ${winners.length} updates won`);
        assert.deepStrictEqual(await b.getRun(run.account_id, run.run_id), winners[0]);
      }
    },
  };
}

/** Cases on the in-flight limit of an account. */
export function inFlightCases(): RunCases {
  return {
    'createRun stops at maxInFlight, under concurrency and across stores': async (a, b) => {
      const account = unique('acct');
      const agent = unique('agt');
      const runs = Array.from({ length: 12 }, () => newRun({ account_id: account, agent_id: agent }));
      const stored = await Promise.all(runs.map((run, i) => (i % 2 ? b : a).createRun(run, { maxInFlight: 4 })));
      assert.equal(stored.filter(Boolean).length, 4);
      for (const [i, run] of runs.entries())
        assert.equal((await a.getRun(account, run.run_id)) !== undefined, stored[i], `run ${i}`);
      assert.equal((await a.listRuns(account, agent, { limit: 100 })).runs.length, 4);
      // The limit is the account's: another account still starts runs.
      assert.equal(await b.createRun(newRun({ agent_id: agent }), { maxInFlight: 4 }), true);
    },

    'a run that finishes, however it ends, stops counting; one that starts still counts': async (a, b) => {
      const account = unique('acct');
      const limit = { maxInFlight: 2 };
      const inFlight = [newRun({ account_id: account }), newRun({ account_id: account })];
      for (const run of inFlight) assert.equal(await a.createRun(run, limit), true);
      assert.equal(await b.createRun(newRun({ account_id: account }), limit), false);
      await b.updateRun(account, inFlight[0]!.run_id, ['queued'], { status: 'running' });
      assert.equal(await a.createRun(newRun({ account_id: account }), limit), false);
      for (const status of ['completed', 'requires_approval', 'failed', 'cancelled'] as const) {
        const done = inFlight.shift()!;
        assert.ok(await b.updateRun(account, done.run_id, UNFINISHED, finish(done, status)));
        const next = newRun({ account_id: account });
        assert.equal(await a.createRun(next, limit), true, `after ${status}`);
        assert.equal(await b.createRun(newRun({ account_id: account }), limit), false, `after ${status}`);
        inFlight.push(next);
      }
    },
  };
}
