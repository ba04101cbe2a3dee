import { AgentHostError } from '../../errors/agenthost-error.js';
import type { RunFailure, RunResult, RunStatus } from '../../records.js';

/** Why this server stopped a run before it finished by itself. */
export type StopReason = 'cancelled' | 'shutdown' | 'store_failed';

/** How a run's turn went: its result, or what it threw. */
export type TurnOutcome = { result: RunResult } | { error: unknown };

/** How a run ends: its final status, with its result or why it failed. */
export interface RunEnding {
  status: RunStatus;
  result: RunResult | null;
  error: RunFailure | null;
}

/** Why a run ends that its server stopped as it shut down. */
export const SHUT_DOWN: RunFailure = { code: 'server_lost', message: 'The server running the run shut down' };

const STOPPED: Record<StopReason, RunFailure> = {
  cancelled: { code: 'cancelled', message: 'The run was cancelled' },
  shutdown: SHUT_DOWN,
  store_failed: { code: 'storage_unavailable', message: 'The run store failed during the run; the run was stopped' },
};

/**
 * How a run ends. A turn that reached its result ends with it, even when a stop came too late to
 * prevent it (the turn is stored); otherwise the stop's reason, or the error the turn threw: an
 * agenthost error's code and message, anything else `internal` with a message that reveals nothing.
 */
export function runEnding(outcome: TurnOutcome, reason: StopReason | undefined): RunEnding {
  if ('result' in outcome) return { status: outcome.result.status, result: outcome.result, error: null };
  if (reason) return { status: reason === 'cancelled' ? 'cancelled' : 'failed', result: null, error: STOPPED[reason] };
  const { error } = outcome;
  const failure = AgentHostError.isInstance(error)
    ? { code: error.code, message: error.message }
    : { code: 'internal', message: 'The run failed' };
  return { status: 'failed', result: null, error: failure };
}
