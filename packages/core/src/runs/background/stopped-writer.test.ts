import { MemoryStore } from '@agenthost/storage';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { RunEventRecord } from '../../records.js';
import { type BackgroundFixture, backgroundFixture, collectEvents, runStoreView } from './background-test-kit.js';

const ACME = 'acme';
let f: BackgroundFixture;

beforeEach(() => {
  f = backgroundFixture(new MemoryStore());
});
afterEach(() => f.close());

describe('a run whose event writer stopped', () => {
  test('a write that failed but lands after the run looked: its last event goes after it, and the record names it', async () => {
    const late: RunEventRecord = { id: 1, event: { type: 'text-delta', delta: 'partial' } };
    let appends = 0;
    const runs = runStoreView(f.runs, {
      appendEvents: async (runId, events) => {
        appends++;
        // The first write fails (its answer is lost); it is stored just as the run writes its last event.
        if (appends === 1) throw new Error('connection reset');
        if (appends === 2) await f.runs.appendEvents(runId, [late]);
        return f.runs.appendEvents(runId, events);
      },
    });
    const svc = f.service({ runs });
    const { agent_id } = await svc.createAgent(ACME, { name: 'A', instruction: 'I', model: 'slow' });
    const { run_id } = await svc.startRun(ACME, agent_id, { input: 'hi' });
    await f.slow.started();
    f.slow.send('partial');
    const run = await f.settled(svc, run_id);
    const error = { code: 'storage_unavailable', message: 'The run store failed during the run; the run was stopped' };
    expect([run.status, run.error, run.last_event_id, appends]).toStrictEqual(['failed', error, 2, 3]);
    expect(await collectEvents(await svc.runEvents(ACME, run_id))).toStrictEqual([
      late,
      { id: 2, event: { type: 'error', ...error } },
    ]);
  });
});
