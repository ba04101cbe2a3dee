import assert from 'node:assert/strict';
import type { RunEventRecord, RunFailure } from '@agenthost/core';
import { NO_LIMIT, newRun, type RunCases, runResult, someEvents } from './run-fixtures.js';

const LOST: RunFailure = { code: 'server_lost', message: 'lost' };
const lostError = (id: number): RunEventRecord => ({ id, event: { type: 'error', ...LOST } });

/**
 * Cases on how a run's end and its events meet: a finished run takes only its last event, and a
 * change conditioned on where the stored events end is one step with the appends.
 */
export function runEndingCases(): RunCases {
  return {
    'a finished run takes only its last event, alone, at its last_event_id, agreeing with its record': async (a, b) => {
      const run = newRun();
      await a.createRun(run, NO_LIMIT);
      const events = someEvents(1, 4);
      await a.appendEvents(run.run_id, events.slice(0, 3));
      await b.updateRun(run.account_id, run.run_id, ['queued'], { status: 'failed', error: LOST, last_event_id: 4 });
      const done = { type: 'done' as const, result: runResult(run.session_id) };
      const refused: RunEventRecord[][] = [
        events.slice(3), // not a last event
        [{ id: 4, event: done }], // not what the record says
        [{ id: 4, event: { type: 'error', code: 'internal', message: 'another error' } }],
        [events[2]!, lostError(4)], // not alone
        [lostError(4), { ...lostError(5) }],
      ];
      for (const batch of refused) assert.equal(await b.appendEvents(run.run_id, batch), false);
      assert.equal(await a.appendEvents(run.run_id, [lostError(4)]), true);
      // The same event again (a write whose answer was lost) changes nothing; nothing goes past it.
      assert.equal(await b.appendEvents(run.run_id, [lostError(4)]), true);
      assert.equal(await b.appendEvents(run.run_id, [lostError(5)]), false);
      assert.equal(await b.appendEvents(run.run_id, [events[2]!, lostError(4)]), true);
      assert.deepStrictEqual(await a.readEvents(run.run_id, 0, 10), [...events.slice(0, 3), lostError(4)]);
    },

    'a finished run takes its `done` when the record holds its result, and no event past its last_event_id': async (
      a,
      b,
    ) => {
      const run = newRun();
      await a.createRun(run, NO_LIMIT);
      await a.appendEvents(run.run_id, someEvents(1, 2));
      const result = runResult(run.session_id);
      await a.updateRun(run.account_id, run.run_id, ['queued'], { status: 'completed', result, last_event_id: 3 });
      const done: RunEventRecord = { id: 3, event: { type: 'done', result } };
      assert.equal(await b.appendEvents(run.run_id, [lostError(3)]), false);
      assert.equal(await b.appendEvents(run.run_id, [done]), true);
      assert.equal(await b.appendEvents(run.run_id, [{ ...done, id: 4 }]), false);
      assert.deepStrictEqual(await a.readEvents(run.run_id, 0, 10), [...someEvents(1, 2), done]);
    },

    'a change on eventsEndAt applies only when the stored events end exactly there': async (a, b) => {
      const run = newRun();
      await a.createRun(run, NO_LIMIT);
      const at = (eventsEndAt: number, lease_until: number) =>
        b.updateRun(run.account_id, run.run_id, ['queued'], { lease_until }, { eventsEndAt });
      assert.equal(await at(1, 1), undefined);
      assert.deepStrictEqual(await at(0, 2), { ...run, lease_until: 2 });
      await a.appendEvents(run.run_id, someEvents(1, 2));
      assert.equal(await at(0, 3), undefined);
      assert.equal(await at(1, 3), undefined);
      assert.equal(await at(3, 3), undefined);
      assert.deepStrictEqual(await a.getRun(run.account_id, run.run_id), { ...run, lease_until: 2 });
      assert.deepStrictEqual(await at(2, 4), { ...run, lease_until: 4 });
      // With a lease condition too: both must hold.
      const leased = { eventsEndAt: 2, leaseBefore: 4 };
      assert.equal(await b.updateRun(run.account_id, run.run_id, ['queued'], { lease_until: 5 }, leased), undefined);
    },

    'of an append and a change on where the events end, racing, exactly one happens': async (a, b) => {
      for (let i = 0; i < 10; i++) {
        const run = newRun();
        await a.createRun(run, NO_LIMIT);
        await a.appendEvents(run.run_id, someEvents(1, 1));
        const end = { status: 'failed' as const, error: LOST, last_event_id: 2 };
        const [ended, appended] = await Promise.all([
          b.updateRun(run.account_id, run.run_id, ['queued'], end, { eventsEndAt: 1 }),
          a.appendEvents(run.run_id, someEvents(2, 1)),
        ]);
        assert.equal(Boolean(ended) !== appended, true, `ended: ${Boolean(ended)}, appended: ${appended}`);
        const stored = await b.readEvents(run.run_id, 0, 10);
        assert.deepStrictEqual(stored, [...someEvents(1, 1), ...(ended ? [] : someEvents(2, 1))]);
        assert.equal((await a.getRun(run.account_id, run.run_id))?.status, ended ? 'failed' : 'queued');
      }
    },
  };
}
