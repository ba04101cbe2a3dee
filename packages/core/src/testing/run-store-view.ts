import type { RunStore } from '../ports/run-store.js';

/**
 * A view of `runs` with some of its methods replaced: a server whose store connection misbehaves, or a
 * store whose `close` also closes what opened it.
 */
export function runStoreView(runs: RunStore, overrides: Partial<RunStore>): RunStore {
  return {
    createRun: (run, options) => runs.createRun(run, options),
    getRun: (accountId, runId) => runs.getRun(accountId, runId),
    listRuns: (accountId, agentId, options) => runs.listRuns(accountId, agentId, options),
    updateRun: (accountId, runId, from, change, condition) => runs.updateRun(accountId, runId, from, change, condition),
    appendEvents: (runId, events) => runs.appendEvents(runId, events),
    readEvents: (runId, after, limit) => runs.readEvents(runId, after, limit),
    publish: (runId, signal) => runs.publish(runId, signal),
    subscribe: (runId, listener) => runs.subscribe(runId, listener),
    expiredRuns: (now, limit) => runs.expiredRuns(now, limit),
    purge: (now) => runs.purge(now),
    ...overrides,
  };
}
