import { optional, whole } from './env-schema.js';

/** The limits of background runs, in the units `AgentService`'s `backgroundRuns` takes. */
export interface BackgroundRunSettings {
  /** Background runs one account may have queued or running at once, on all servers. */
  maxInFlight: number;
  /** How long a finished run's events can still be read, in ms. */
  eventRetentionMs: number;
  /** How long a finished run can still be read, in ms. */
  recordRetentionMs: number;
  /** The lease of a running run, in ms: a server that stops renewing it for this long has lost its runs. */
  leaseMs: number;
  /** Run event streams one account may have open at once on this server. */
  maxEventReaders: number;
}

const DAY_S = 86_400;

/**
 * The variables of background runs and of the store's locks, with their bounds and defaults. A lock's
 * lease must outlast the store's 5 s bound on one command with room for its renewal (every third of
 * the lease), so it is at least 10 s.
 */
export const backgroundRunVariables = {
  AGENTHOST_RUNS_MAX_IN_FLIGHT: optional(whole(1, 10_000)).transform((n) => n ?? 16),
  AGENTHOST_RUN_EVENTS_RETENTION_S: optional(whole(1, 30 * DAY_S)).transform((n) => n ?? 3_600),
  AGENTHOST_RUN_RECORDS_RETENTION_S: optional(whole(1, 365 * DAY_S)).transform((n) => n ?? 7 * DAY_S),
  AGENTHOST_RUN_LEASE_MS: optional(whole(1_000, 600_000)).transform((n) => n ?? 10_000),
  AGENTHOST_RUN_EVENT_READERS: optional(whole(1, 10_000)).transform((n) => n ?? 64),
  AGENTHOST_LOCK_LEASE_MS: optional(whole(10_000, 600_000)).transform((n) => n ?? 15_000),
};

/**
 * What no single variable can say: a run's events are read through its record, so the record must
 * be kept at least as long as its events. Checked on the two variables alone, so the problem is
 * reported beside any other.
 */
export function backgroundRunProblems(env: Record<string, string | undefined>): string[] {
  const events = backgroundRunVariables.AGENTHOST_RUN_EVENTS_RETENTION_S.safeParse(
    env.AGENTHOST_RUN_EVENTS_RETENTION_S,
  );
  const records = backgroundRunVariables.AGENTHOST_RUN_RECORDS_RETENTION_S.safeParse(
    env.AGENTHOST_RUN_RECORDS_RETENTION_S,
  );
  if (!events.success || !records.success || records.data >= events.data) return [];
  return [
    `AGENTHOST_RUN_RECORDS_RETENTION_S: must be at least AGENTHOST_RUN_EVENTS_RETENTION_S (${events.data}), since a run's events are read through its record`,
  ];
}

/** The settings of background runs from the parsed variables. */
export function backgroundRunSettings(e: {
  AGENTHOST_RUNS_MAX_IN_FLIGHT: number;
  AGENTHOST_RUN_EVENTS_RETENTION_S: number;
  AGENTHOST_RUN_RECORDS_RETENTION_S: number;
  AGENTHOST_RUN_LEASE_MS: number;
  AGENTHOST_RUN_EVENT_READERS: number;
}): BackgroundRunSettings {
  return {
    maxInFlight: e.AGENTHOST_RUNS_MAX_IN_FLIGHT,
    eventRetentionMs: e.AGENTHOST_RUN_EVENTS_RETENTION_S * 1_000,
    recordRetentionMs: e.AGENTHOST_RUN_RECORDS_RETENTION_S * 1_000,
    leaseMs: e.AGENTHOST_RUN_LEASE_MS,
    maxEventReaders: e.AGENTHOST_RUN_EVENT_READERS,
  };
}
