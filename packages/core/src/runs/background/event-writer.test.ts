import { describe, expect, test } from 'vitest';
import type { RunEventRecord } from '../../records.js';
import { storedRun } from './background-test-kit.js';
import { mergeTextDeltas, RunEventWriter } from './event-writer.js';
import { InProcessRunStore } from './in-process-run-store.js';

const delta = (d: string) => ({ type: 'text-delta' as const, delta: d });
const call = { type: 'tool-call' as const, tool_call_id: 'c1', tool_name: 't', input: {} };

/** A run store whose appends wait until the test lets each one through, and which keeps each batch. */
async function gatedStore() {
  const runs = new InProcessRunStore();
  await runs.createRun(storedRun({ started_at: null, owner: 'o' }), { maxInFlight: 1 });
  const batches: RunEventRecord[][] = [];
  const gates: (() => void)[] = [];
  const append = runs.appendEvents.bind(runs);
  runs.appendEvents = async (runId, events) => {
    batches.push([...events]);
    await new Promise<void>((resolve) => gates.push(resolve));
    return append(runId, events);
  };
  const signals: unknown[] = [];
  await runs.subscribe('r', (s) => signals.push(s));
  return {
    runs,
    batches,
    signals,
    open: () => {
      for (const g of gates.splice(0)) g();
    },
  };
}

describe('RunEventWriter', () => {
  test('writes the first event at once and those that came meanwhile as one batch, text deltas merged', async () => {
    const { runs, batches, signals, open } = await gatedStore();
    const writer = new RunEventWriter(runs, 'r', { canWrite: () => true, onStop: () => {} });
    writer.push(delta('a'));
    writer.push(delta('b'));
    writer.push(delta('c'));
    writer.push(call);
    writer.push(delta('d'));
    await Promise.resolve();
    open();
    const flushed = writer.flush();
    await new Promise((resolve) => setImmediate(resolve));
    open();
    await flushed;
    expect(batches).toStrictEqual([
      [{ id: 1, event: delta('a') }],
      [
        { id: 2, event: delta('bc') },
        { id: 3, event: call },
        { id: 4, event: delta('d') },
      ],
    ]);
    expect(await runs.readEvents('r', 0, 10)).toStrictEqual(batches.flat());
    expect(signals).toStrictEqual([
      { type: 'events', id: 1 },
      { type: 'events', id: 4 },
    ]);
    expect([writer.lastId, writer.stopped]).toStrictEqual([4, false]);
  });

  test('stops at a failed write (store_failed), a refused one or when it may no longer write (lost), and says why once', async () => {
    const runs = new InProcessRunStore();
    const stops: string[] = [];
    const failingRuns = Object.assign(new InProcessRunStore(), {
      appendEvents: () => Promise.reject(new Error('store down')),
    });
    const failing = new RunEventWriter(failingRuns, 'r', { canWrite: () => true, onStop: (r) => stops.push(r) });
    failing.push(delta('a'));
    failing.push(delta('b'));
    await failing.flush();
    failing.push(delta('c'));
    await failing.flush();
    // The store refuses: there is no such run (as for a run another server ended, or ids it holds).
    const refused = new RunEventWriter(runs, 'unknown', { canWrite: () => true, onStop: (r) => stops.push(r) });
    refused.push(delta('a'));
    await refused.flush();
    let may = false;
    const barred = new RunEventWriter(runs, 'unknown', { canWrite: () => may, onStop: (r) => stops.push(r) });
    barred.push(delta('a'));
    await barred.flush();
    may = true;
    barred.push(delta('b'));
    await barred.flush();
    expect([stops, [failing.stopped, failing.lastId], [refused.stopped, refused.lastId], barred.stopped]).toStrictEqual(
      [['store_failed', 'lost', 'lost'], [true, 0], [true, 0], true],
    );
  });

  test('mergeTextDeltas joins only consecutive text deltas', () => {
    expect(mergeTextDeltas([delta('a'), delta('b'), call, delta('c'), delta('d'), call])).toStrictEqual([
      delta('ab'),
      call,
      delta('cd'),
      call,
    ]);
  });
});
