import { MemoryStore } from '@agenthost/storage';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { type BackgroundFixture, backgroundFixture, collectEvents, runStoreView } from './background-test-kit.js';
import { SERVER_LOST } from './lost-runs.js';

const ACME = 'acme';
const LEASE_MS = 150;
const realClock = () => new Date();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
let f: BackgroundFixture;

beforeEach(() => {
  f = backgroundFixture(new MemoryStore());
});
afterEach(() => f.close());

describe('background runs across servers, in real time', () => {
  test('a server that can no longer renew its lease stops its run; another marks it server_lost within 11/6 of a lease', async () => {
    let renewals = true;
    const aRuns = runStoreView(f.runs, {
      updateRun: (accountId, runId, from, change, condition) =>
        change.lease_until !== undefined && !renewals
          ? Promise.reject(new Error('connection lost'))
          : f.runs.updateRun(accountId, runId, from, change, condition),
      // Nor does it sweep: only the other server can find the run lost.
      expiredRuns: async () => [],
    });
    const options = { now: realClock, backgroundRuns: { leaseMs: LEASE_MS } };
    const a = f.service({ ...options, runs: aRuns });
    const b = f.service(options);
    const { agent_id } = await a.createAgent(ACME, { name: 'A', instruction: 'I', model: 'slow' });
    const { run_id, session_id } = await a.startRun(ACME, agent_id, { input: 'hi' });
    await f.slow.started();
    f.slow.send('one');
    await vi.waitFor(async () => expect((await b.getRun(ACME, run_id)).status).toBe('running'));
    renewals = false;
    const cut = Date.now();
    const failed = await vi.waitFor(
      async () => {
        const run = await b.getRun(ACME, run_id);
        if (run.status !== 'failed') throw new Error(run.status);
        return run;
      },
      { timeout: 3000, interval: 5 },
    );
    // The lease ran out at most a lease after the cut; others wait a third of a lease more (clock
    // skew), and a sweep comes within half a lease after that.
    expect(Date.now() - cut).toBeLessThan(LEASE_MS * (1 + 1 / 3 + 1 / 2) + 150);
    expect([failed.error, failed.result]).toStrictEqual([SERVER_LOST, null]);
    expect(await collectEvents(await b.runEvents(ACME, run_id))).toStrictEqual([
      { id: 1, event: { type: 'text-delta', delta: 'one' } },
      { id: 2, event: { type: 'error', ...SERVER_LOST } },
    ]);
    await vi.waitFor(() =>
      expect([f.slow.aborted, a.backgroundRunCounts()]).toStrictEqual([true, { queued: 0, running: 0 }]),
    );
    expect(await f.messages(agent_id, session_id)).toStrictEqual([]);
    // The session is free: a new run on it, from the other server, completes.
    const next = await b.startRun(ACME, agent_id, { input: 'again', session_id });
    await f.slow.started(2);
    f.slow.send('two');
    f.slow.finish();
    expect((await f.settled(b, next.run_id)).status).toBe('completed');
  });

  test('a lease that runs out unrenewed stops the run at its end: a turn that finishes just after stores nothing', async () => {
    const aRuns = runStoreView(f.runs, {
      // The lease's own timers start well after the lease was taken (a slow store).
      createRun: async (run, options) => {
        const made = await f.runs.createRun(run, options);
        await sleep(40);
        return made;
      },
      updateRun: (accountId, runId, from, change, condition) =>
        change.lease_until !== undefined
          ? Promise.reject(new Error('connection lost'))
          : f.runs.updateRun(accountId, runId, from, change, condition),
      expiredRuns: async () => [],
    });
    const options = { now: realClock, backgroundRuns: { leaseMs: LEASE_MS } };
    const a = f.service({ ...options, runs: aRuns });
    const { agent_id } = await a.createAgent(ACME, { name: 'A', instruction: 'I', model: 'slow' });
    const { run_id, session_id } = await a.startRun(ACME, agent_id, { input: 'hi' });
    await f.slow.started();
    f.slow.send('one');
    const { lease_until } = (await f.runs.getRun(ACME, run_id))!;
    await sleep(lease_until + 15 - Date.now());
    f.slow.finish();
    await vi.waitFor(() => expect(a.backgroundRunCounts()).toStrictEqual({ queued: 0, running: 0 }));
    expect(f.slow.aborted).toBe(true);
    expect(await f.messages(agent_id, session_id)).toStrictEqual([]);
    // Another server ends it as lost.
    const b = f.service(options);
    const failed = await vi.waitFor(
      async () => {
        const run = await b.getRun(ACME, run_id);
        if (run.status !== 'failed') throw new Error(run.status);
        return run;
      },
      { timeout: 3000, interval: 5 },
    );
    expect([failed.error, failed.result]).toStrictEqual([SERVER_LOST, null]);
  });

  test('a cancel whose signal was lost still stops the run, through the lease renewal', async () => {
    const bRuns = runStoreView(f.runs, {
      publish: (runId, signal) => (signal.type === 'cancel' ? Promise.resolve() : f.runs.publish(runId, signal)),
    });
    const options = { now: realClock, backgroundRuns: { leaseMs: LEASE_MS } };
    const a = f.service(options);
    const b = f.service({ ...options, runs: bRuns });
    const { agent_id } = await a.createAgent(ACME, { name: 'A', instruction: 'I', model: 'slow' });
    const { run_id, session_id } = await a.startRun(ACME, agent_id, { input: 'hi' });
    await f.slow.started();
    await vi.waitFor(async () => expect((await b.getRun(ACME, run_id)).status).toBe('running'));
    const asked = Date.now();
    const cancelled = await b.cancelRun(ACME, run_id);
    expect(Date.now() - asked).toBeLessThan(LEASE_MS / 3 + 200);
    expect([cancelled.status, cancelled.error?.code]).toStrictEqual(['cancelled', 'cancelled']);
    expect(await f.messages(agent_id, session_id)).toStrictEqual([]);
  });

  test('a cancel from another server stops the run well within a second', async () => {
    const a = f.service({ now: realClock });
    const b = f.service({ now: realClock });
    const { agent_id } = await a.createAgent(ACME, { name: 'A', instruction: 'I', model: 'slow' });
    const { run_id } = await a.startRun(ACME, agent_id, { input: 'hi' });
    await f.slow.started();
    const asked = Date.now();
    expect((await b.cancelRun(ACME, run_id)).status).toBe('cancelled');
    expect(Date.now() - asked).toBeLessThan(200);
  });

  test('close stops a run whose finishing update always fails within its grace and about a lease', async () => {
    const aRuns = runStoreView(f.runs, {
      updateRun: (accountId, runId, from, change, condition) =>
        change.finished_at !== undefined
          ? Promise.reject(new Error('connection reset'))
          : f.runs.updateRun(accountId, runId, from, change, condition),
      expiredRuns: async () => [],
    });
    const a = f.service({ now: realClock, backgroundRuns: { leaseMs: LEASE_MS }, runs: aRuns });
    const { agent_id } = await a.createAgent(ACME, { name: 'A', instruction: 'I', model: 'slow' });
    await a.startRun(ACME, agent_id, { input: 'hi' });
    await f.slow.started();
    const graceMs = 20;
    const asked = Date.now();
    const closed = await Promise.race([a.close({ graceMs }).then(() => 'closed'), sleep(3000).then(() => 'waiting')]);
    expect(closed).toBe('closed');
    // The grace, the lease no longer renewed, the last retry's wait (backoff from 50 ms), and some slack.
    expect(Date.now() - asked).toBeLessThan(graceMs + LEASE_MS + 400 + 150);
    expect([f.slow.aborted, a.backgroundRunCounts()]).toStrictEqual([true, { queued: 0, running: 0 }]);
  });
});
