import { describe, expect, test } from 'vitest';
import type { RunChange, RunCondition, StoredRun } from '../../ports/run-store.js';
import type { RunEventRecord, RunStatus } from '../../records.js';
import { runResult, storedRun } from './background-test-kit.js';
import { InProcessRunStore } from './in-process-run-store.js';
import { markLost, SERVER_LOST } from './lost-runs.js';

const run: StoredRun = storedRun();
const limits = { now: 1000, eventRetentionMs: 10, recordRetentionMs: 20 };
const result = runResult();
const delta = (id: number): RunEventRecord => ({ id, event: { type: 'text-delta', delta: `${id}` } });
const done = (id: number): RunEventRecord => ({ id, event: { type: 'done', result } });
const lost = (id: number): RunEventRecord => ({ id, event: { type: 'error', ...SERVER_LOST } });
const ended = { finished_at: '1970-01-01T00:00:01.000Z', events_expire_at: 1010, expires_at: 1020 };

/** A store that runs `around` (the owner's late write) around the first change of the run. */
class RacingStore extends InProcessRunStore {
  constructor(readonly around: { before?: () => Promise<void>; after?: () => Promise<void> }) {
    super();
  }
  #raced = false;

  override async updateRun(
    accountId: string,
    runId: string,
    from: readonly RunStatus[],
    change: RunChange,
    condition?: RunCondition,
  ): Promise<StoredRun | undefined> {
    const first = !this.#raced;
    this.#raced = true;
    if (first) await this.around.before?.();
    const updated = await super.updateRun(accountId, runId, from, change, condition);
    if (first) await this.around.after?.();
    return updated;
  }
}

describe('markLost, racing its owner', () => {
  test("an owner's `done` stored after the last event was read, before the change: the run ends with it", async () => {
    const runs: RacingStore = new RacingStore({
      before: async () => void (await runs.appendEvents('r', [done(2)])),
    });
    await runs.createRun(run, { maxInFlight: 1 });
    await runs.appendEvents('r', [delta(1)]);
    expect(await markLost(runs, run, limits)).toBe(true);
    expect(await runs.getRun('a', 'r')).toStrictEqual({
      ...run,
      ...ended,
      status: 'completed',
      result,
      last_event_id: 2,
    });
    expect(await runs.readEvents('r', 0, 10)).toStrictEqual([delta(1), done(2)]);
  });

  test("an owner's events that land after the change are refused: the error takes the id the record names", async () => {
    const answers: boolean[] = [];
    const runs: RacingStore = new RacingStore({
      after: async () => {
        answers.push(await runs.appendEvents('r', [delta(2)]), await runs.appendEvents('r', [done(2)]));
      },
    });
    await runs.createRun(run, { maxInFlight: 1 });
    await runs.appendEvents('r', [delta(1)]);
    expect(await markLost(runs, run, limits)).toBe(true);
    expect(answers).toStrictEqual([false, false]);
    const failed = { ...run, ...ended, status: 'failed', error: SERVER_LOST, last_event_id: 2 };
    expect(await runs.getRun('a', 'r')).toStrictEqual(failed);
    expect(await runs.readEvents('r', 0, 10)).toStrictEqual([delta(1), lost(2)]);
  });

  test('an error event whose append is refused once (or fails) is written again', async () => {
    class RefusingOnce extends InProcessRunStore {
      refused = 0;
      override async appendEvents(runId: string, events: readonly RunEventRecord[]): Promise<boolean> {
        if (this.refused++ === 0 && events[0]?.event.type === 'error') return false;
        return super.appendEvents(runId, events);
      }
    }
    const runs = new RefusingOnce();
    await runs.createRun(run, { maxInFlight: 1 });
    expect(await markLost(runs, run, limits)).toBe(true);
    expect(runs.refused).toBe(2);
    expect(await runs.readEvents('r', 0, 10)).toStrictEqual([lost(1)]);
  });
});
