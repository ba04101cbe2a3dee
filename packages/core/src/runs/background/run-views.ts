import type { StoredRun } from '../../ports/run-store.js';
import type { BackgroundRun, RunEventRecord, RunFailure } from '../../records.js';

/** A stored run as clients see it: without its account, owner, lease, cancel flag and expiry times. */
export function publicRun(run: StoredRun): BackgroundRun {
  const { run_id, agent_id, session_id, status, created_at, started_at, finished_at, result, error } = run;
  return {
    run_id,
    agent_id,
    session_id,
    status,
    created_at,
    started_at,
    finished_at,
    result,
    error,
    last_event_id: run.last_event_id,
  };
}

/** The event that ends a run with `failure`: its last. */
export function errorEvent(failure: RunFailure): RunEventRecord['event'] {
  return { type: 'error', code: failure.code, message: failure.message };
}

/**
 * A finished run's last event, rebuilt from its record (for a reader who comes after its events
 * expired): `done` with the result, or the `error` that ended it.
 */
export function lastEventOf(run: StoredRun): RunEventRecord {
  const event: RunEventRecord['event'] = run.result
    ? { type: 'done', result: run.result }
    : errorEvent(run.error ?? { code: 'internal', message: 'The run failed' });
  return { id: run.last_event_id, event };
}

/** The expiry times of a run that finishes at `now` (epoch ms). */
export function expiryAt(
  now: number,
  limits: { eventRetentionMs: number; recordRetentionMs: number },
): Pick<StoredRun, 'events_expire_at' | 'expires_at'> {
  return { events_expire_at: now + limits.eventRetentionMs, expires_at: now + limits.recordRetentionMs };
}
