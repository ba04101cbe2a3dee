import assert from 'node:assert/strict';
import type { RunEventRecord, RunSignal } from '@agenthost/core';
import { eventually, NO_LIMIT, newRun, type RunCases, someEvents } from './run-fixtures.js';

/** Cases on a run's events: order, paging by id, one run's apart from another's. */
export function runEventCases(): RunCases {
  return {
    'events read back in order, after an id and up to a limit, from every store': async (a, b) => {
      const run = newRun();
      await a.createRun(run, NO_LIMIT);
      const events = someEvents(1, 7);
      await a.appendEvents(run.run_id, events.slice(0, 3));
      await a.appendEvents(run.run_id, events.slice(3, 4));
      await a.appendEvents(run.run_id, events.slice(4));
      assert.deepStrictEqual(await b.readEvents(run.run_id, 0, 100), events);
      assert.deepStrictEqual(await b.readEvents(run.run_id, 2, 3), events.slice(2, 5));
      assert.deepStrictEqual(await a.readEvents(run.run_id, 6, 100), events.slice(6));
      assert.deepStrictEqual(await a.readEvents(run.run_id, 7, 100), []);
      assert.deepStrictEqual(await a.readEvents(run.run_id, 0, 1), events.slice(0, 1));
    },

    'an append continues the stored events exactly: a gap or an id held with another event is refused': async (
      a,
      b,
    ) => {
      const run = newRun();
      await a.createRun(run, NO_LIMIT);
      const events = someEvents(1, 4);
      assert.equal(await a.appendEvents(run.run_id, events.slice(0, 2)), true);
      // A gap: 4 does not follow 2.
      assert.equal(await b.appendEvents(run.run_id, events.slice(3)), false);
      // An id held with another event (and one that would follow it): nothing of the batch is stored.
      const other = { id: 2, event: { type: 'text-delta' as const, delta: 'another' } };
      assert.equal(await b.appendEvents(run.run_id, [other, events[2]!]), false);
      assert.deepStrictEqual(await a.readEvents(run.run_id, 0, 10), events.slice(0, 2));
      // The ids held with the same events, then the next: the stored events go on from there.
      assert.equal(await b.appendEvents(run.run_id, events.slice(1)), true);
      assert.deepStrictEqual(await a.readEvents(run.run_id, 0, 10), events);
      assert.equal(await a.appendEvents(newRun().run_id, events.slice(0, 1)), false);
    },

    'of concurrent appends of one id, exactly one is stored': async (a, b) => {
      const run = newRun();
      await a.createRun(run, NO_LIMIT);
      const batches = Array.from({ length: 6 }, (_, i) => [
        { id: 1, event: { type: 'text-delta' as const, delta: `writer ${i}` } },
      ]);
      const answers = await Promise.all(batches.map((batch, i) => (i % 2 ? b : a).appendEvents(run.run_id, batch)));
      assert.equal(answers.filter(Boolean).length, 1);
      assert.deepStrictEqual(await b.readEvents(run.run_id, 0, 10), batches[answers.indexOf(true)]);
    },

    'once its events expired, a finished run takes no event': async (a, b) => {
      const run = newRun();
      await a.createRun(run, NO_LIMIT);
      await a.appendEvents(run.run_id, someEvents(1, 1));
      const now = Date.now();
      const end = { status: 'failed' as const, last_event_id: 2, events_expire_at: now - 1, expires_at: now + 60_000 };
      await a.updateRun(run.account_id, run.run_id, ['queued'], end);
      await b.purge(Date.now());
      assert.equal(await b.appendEvents(run.run_id, someEvents(1, 2)), false);
      assert.equal(await a.appendEvents(run.run_id, someEvents(2, 1)), false);
      assert.deepStrictEqual(await a.readEvents(run.run_id, 0, 10), []);
    },

    'a batch whose ids are not consecutive whole numbers from 1 is a TypeError, and stores nothing': async (a) => {
      const run = newRun();
      await a.createRun(run, NO_LIMIT);
      const [one, two, three] = someEvents(1, 3) as [RunEventRecord, RunEventRecord, RunEventRecord];
      for (const batch of [[two, one], [one, three], [{ ...one, id: 0 }], [{ ...one, id: 1.5 }]])
        await assert.rejects(a.appendEvents(run.run_id, batch), TypeError);
      assert.deepStrictEqual(await a.readEvents(run.run_id, 0, 10), []);
    },

    'each run has its own events': async (a, b) => {
      const [one, two] = [newRun(), newRun()];
      await a.createRun(one, NO_LIMIT);
      await a.createRun(two, NO_LIMIT);
      await a.appendEvents(one.run_id, someEvents(1, 2));
      await b.appendEvents(two.run_id, someEvents(1, 3));
      assert.deepStrictEqual(await b.readEvents(one.run_id, 0, 100), someEvents(1, 2));
      assert.deepStrictEqual(await a.readEvents(two.run_id, 0, 100), someEvents(1, 3));
      assert.deepStrictEqual(await a.readEvents(newRun().run_id, 0, 100), []);
    },

    'events are copies: changing one changes nothing stored': async (a) => {
      const run = newRun();
      await a.createRun(run, NO_LIMIT);
      const events = someEvents(1, 2);
      await a.appendEvents(run.run_id, events);
      (events[1]!.event as { input: unknown }).input = 'changed after append';
      const read = await a.readEvents(run.run_id, 0, 10);
      (read[0]!.event as { delta: string }).delta = 'changed after read';
      assert.deepStrictEqual(await a.readEvents(run.run_id, 0, 10), someEvents(1, 2));
    },
  };
}

/** Cases on signals: from any store to every subscriber of the run, in order, until unsubscribed. */
export function runSignalCases(): RunCases {
  return {
    'a signal published on one store reaches the subscribers on every store, in order': async (a, b) => {
      const run = newRun();
      const onA: RunSignal[] = [];
      const onB: RunSignal[] = [];
      const stop = [
        await a.subscribe(run.run_id, (s) => onA.push(s)),
        await b.subscribe(run.run_id, (s) => onB.push(s)),
      ];
      const sent: RunSignal[] = [
        { type: 'events', id: 1 },
        { type: 'cancel' },
        { type: 'events', id: 2 },
        { type: 'end' },
      ];
      for (const [i, signal] of sent.entries()) await (i % 2 ? b : a).publish(run.run_id, signal);
      await eventually(() => onA.length === 4 && onB.length === 4, 'four signals on each store');
      assert.deepStrictEqual([onA, onB], [sent, sent]);
      for (const unsubscribe of stop) await unsubscribe();
    },

    'a listener hears only its run, and nothing once it unsubscribed': async (a, b) => {
      const [x, y] = [newRun(), newRun()];
      const first: RunSignal[] = [];
      const second: RunSignal[] = [];
      const other: RunSignal[] = [];
      const stopFirst = await b.subscribe(x.run_id, (s) => first.push(s));
      const stopSecond = await b.subscribe(x.run_id, (s) => second.push(s));
      const stopOther = await b.subscribe(y.run_id, (s) => other.push(s));
      await a.publish(x.run_id, { type: 'events', id: 1 });
      await eventually(() => first.length === 1 && second.length === 1, 'the signal on both listeners');
      await stopFirst();
      await stopFirst();
      await a.publish(x.run_id, { type: 'end' });
      await a.publish(y.run_id, { type: 'cancel' });
      // Signals of one store arrive in order: once these are in, anything else sent before is too.
      await eventually(() => second.length === 2 && other.length === 1, 'the later signals');
      assert.deepStrictEqual(
        [first, second, other],
        [[{ type: 'events', id: 1 }], [{ type: 'events', id: 1 }, { type: 'end' }], [{ type: 'cancel' }]],
      );
      await stopSecond();
      await stopOther();
    },

    'a listener that throws stops neither the others nor the publisher': async (a, b) => {
      const run = newRun();
      const heard: RunSignal[] = [];
      const stopThrowing = await b.subscribe(run.run_id, () => {
        throw new Error('a listener failed');
      });
      const stop = await b.subscribe(run.run_id, (s) => heard.push(s));
      await a.publish(run.run_id, { type: 'end' });
      await eventually(() => heard.length === 1, 'the signal');
      await stopThrowing();
      await stop();
    },
  };
}
