import type { BackgroundRun, RunEventRecord, RunStatus } from '../records.js';

export type { BackgroundRunEvent, RunEventRecord, RunFailure, RunStatus } from '../records.js';

/** A background run as a {@link RunStore} keeps it: what clients see, and what only the servers need. */
export interface StoredRun extends BackgroundRun {
  account_id: string;
  /** Whether someone asked to cancel it. */
  cancel_requested: boolean;
  /** The server (an `AgentService`) running it. */
  owner: string;
  /** Until when (epoch ms) the owner's lease runs: an unfinished run whose lease ran out is lost. */
  lease_until: number;
  /** Once finished: when (epoch ms) its events may be deleted. */
  events_expire_at: number | null;
  /** Once finished: when (epoch ms) the run itself may be deleted. */
  expires_at: number | null;
}

/** The fields of a stored run that {@link RunStore.updateRun} may change. */
export type RunChange = Partial<
  Pick<
    StoredRun,
    | 'status'
    | 'started_at'
    | 'finished_at'
    | 'result'
    | 'error'
    | 'last_event_id'
    | 'cancel_requested'
    | 'lease_until'
    | 'events_expire_at'
    | 'expires_at'
  >
>;

/** A further condition of {@link RunStore.updateRun}, checked in the same step as the status. */
export interface RunCondition {
  /**
   * Applies the change only while the run's `lease_until` is before this time (epoch ms): only to a
   * run whose lease still ran out, not to one whose owner renewed it meanwhile.
   */
  leaseBefore?: number;
  /**
   * Applies the change only while the run's stored events end exactly at this id (0: none stored),
   * judged in one step with the appends: so an append that lands meanwhile makes the change fail.
   */
  eventsEndAt?: number;
}

/** What is said about a run to every server: new events up to `id`, a cancel request, or its end. */
export type RunSignal = { type: 'events'; id: number } | { type: 'cancel' } | { type: 'end' };

/** One page of an agent's runs, newest first. */
export interface RunPage {
  runs: StoredRun[];
  /** Pass as `before` for the next (older) page; absent at the end. */
  next?: number;
}

/**
 * The background-run port: run records, their events, and signals between the servers that share
 * the store. Every server sharing a store must share its run store, so that any of them can serve a
 * run's status, events and cancel.
 *
 * A store must guarantee:
 * - **Atomic changes**: `createRun` checks the account's limit and stores the run as one step;
 *   `updateRun` applies a change only when the run's status is one of `from` (and its lease is before
 *   `leaseBefore`, and its stored events end at `eventsEndAt`, when given), as one step with the
 *   run's appends.
 * - **Ordered events**: a run's event ids are 1, 2, 3... with no gap, each held by one event (see
 *   `appendEvents`); `readEvents` returns them in id order, each once.
 * - **Retention**: a finished run's events may be dropped after its `events_expire_at`, the run after
 *   its `expires_at` (by the store's own expiry, or when `purge` runs), never before.
 * - **Signals are hints**: a signal may be lost (a reconnecting connection); readers also poll.
 */
export interface RunStore {
  /**
   * Stores a new unfinished run, unless the account already has `maxInFlight` runs queued or running.
   * @returns `false` (and stores nothing) when the limit is reached.
   */
  createRun(run: StoredRun, options: { maxInFlight: number }): Promise<boolean>;
  /** The run, when it exists and belongs to the account. */
  getRun(accountId: string, runId: string): Promise<StoredRun | undefined>;
  /**
   * An agent's runs, newest first (by `created_at`, then id). `before` and `next` are creation times
   * (epoch ms): a page holds the runs created before `before`, at most `limit` of them unless more
   * were created in the millisecond of its last one (a page never splits a millisecond's runs, so the
   * next page, those created before `next`, starts exactly where it ended).
   */
  listRuns(accountId: string, agentId: string, options: { limit: number; before?: number }): Promise<RunPage>;
  /**
   * Applies `change` to the run when its status is one of `from` (and `condition` holds), atomically.
   * A change to a finished status also stops counting the run against its account's in-flight limit.
   * @returns the run after the change, or `undefined` when there is no such run, its status is not in
   *   `from`, or `condition` does not hold.
   */
  updateRun(
    accountId: string,
    runId: string,
    from: readonly RunStatus[],
    change: RunChange,
    condition?: RunCondition,
  ): Promise<StoredRun | undefined>;
  /**
   * Appends events to the run's events, as one step (all or none). Their ids must continue the
   * stored events exactly: the first is one above the last stored (1 for the first event), each one
   * above the one before. Ids the run already holds are a retried append (a write whose answer was
   * lost): accepted, changing nothing, when their events are the same as those stored. A finished
   * run takes one new event at most: its last, written just after the record that finished it named
   * it, alone in its batch, at exactly its `last_event_id`, and agreeing with the record (`done` for
   * a `completed` or `requires_approval` run; `error` with the record's error code for a `failed` or
   * `cancelled` one); nothing once its events expired.
   * @returns `true` when the events are stored (or already were); `false`, storing nothing, when
   *   refused: a gap, an id held with another event, any other new event of a finished run, a run
   *   whose events expired, or no such run.
   * @throws TypeError for a batch whose ids are not consecutive whole numbers from 1 (a caller's bug).
   */
  appendEvents(runId: string, events: readonly RunEventRecord[]): Promise<boolean>;
  /** Up to `limit` of the run's events with an id above `after`, in order (none once they expired). */
  readEvents(runId: string, after: number, limit: number): Promise<RunEventRecord[]>;
  /** Tells every server sharing the store (this one too) about the run. */
  publish(runId: string, signal: RunSignal): Promise<void>;
  /** Calls `listener` with each signal about the run, from any server, until the returned function is called. */
  subscribe(runId: string, listener: (signal: RunSignal) => void): Promise<() => Promise<void>>;
  /** Up to `limit` unfinished runs whose `lease_until` is before `now`. */
  expiredRuns(now: number, limit: number): Promise<StoredRun[]>;
  /** Deletes what is past its retention at `now` (a store whose keys expire by themselves does nothing). */
  purge(now: number): Promise<void>;
  /** Releases connections and timers. */
  close?(): Promise<void>;
}
