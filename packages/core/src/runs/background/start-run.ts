import { z } from 'zod';
import { findAgent } from '../../agents/find-agent.js';
import { RateLimitedError } from '../../errors/rate-limited-error.js';
import type { StoredRun } from '../../ports/run-store.js';
import { type RunAgentInput, runAgentInputSchema, runHistorySchema } from '../../schemas.js';
import type { ServiceSettings } from '../../service-options.js';
import { parseInput } from '../../validation.js';
import { SHUT_DOWN } from './run-ending.js';
import { hint } from './run-hints.js';
import { errorEvent, expiryAt } from './run-views.js';

/** What a caller asks of a background run. */
export interface StartRequest {
  accountId: string;
  agentId: string;
  input: RunAgentInput;
  history: unknown;
}

/**
 * The first step of a background run, before it goes on without its caller: checks what is cheap to
 * check (the agent, the input, the history sent), then stores the run, `queued`, owned by `owner`
 * with a lease from now, in a new session (made now) unless the input names one.
 * @throws NotFoundError; InvalidInputError; RateLimitedError (nothing stored) when the account
 *   already has `maxInFlight` runs queued or running.
 */
export async function createRun(settings: ServiceSettings, request: StartRequest, owner: string): Promise<StoredRun> {
  const { accountId, agentId, input, history } = request;
  await findAgent(settings.store, accountId, agentId);
  const parsed = parseInput(runAgentInputSchema, input);
  if (history !== undefined) parseInput(z.object({ history: runHistorySchema }), { history });
  const now = settings.now();
  const { maxInFlight, leaseMs } = settings.backgroundRuns;
  const run: StoredRun = {
    run_id: settings.generateId('run'),
    account_id: accountId,
    agent_id: agentId,
    session_id: parsed.session_id ?? settings.generateId('session'),
    status: 'queued',
    created_at: now.toISOString(),
    started_at: null,
    finished_at: null,
    result: null,
    error: null,
    last_event_id: 0,
    cancel_requested: false,
    owner,
    lease_until: now.getTime() + leaseMs,
    events_expire_at: null,
    expires_at: null,
  };
  if (!(await settings.runs.createRun(run, { maxInFlight })))
    throw new RateLimitedError({
      message: `The account has ${maxInFlight} background runs queued or running, the most it may have; retry when one has finished`,
    });
  return run;
}

/**
 * Ends a run stored as the service closed, before it could go on: its `error` event (a server that
 * shut down), then the record, `failed`, then the `end` signal. A store that fails meanwhile leaves
 * the run to the sweepers, which end it as lost once its lease runs out.
 */
export async function abandonRun(settings: ServiceSettings, run: StoredRun): Promise<void> {
  const { runs, backgroundRuns } = settings;
  try {
    await runs.appendEvents(run.run_id, [{ id: 1, event: errorEvent(SHUT_DOWN) }]);
    const now = settings.now();
    const change = { status: 'failed' as const, error: SHUT_DOWN, finished_at: now.toISOString(), last_event_id: 1 };
    await runs.updateRun(run.account_id, run.run_id, ['queued'], {
      ...change,
      ...expiryAt(now.getTime(), backgroundRuns),
    });
    await hint(runs, run.run_id, { type: 'end' });
  } catch {
    // The sweepers end it.
  }
}
