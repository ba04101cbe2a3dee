import { isFinishedRun, type RunChange, type StoredRun } from '@agenthost/core';

/** Every field of a stored run, in the order records are built. */
export const RUN_FIELDS = [
  'run_id',
  'account_id',
  'agent_id',
  'session_id',
  'status',
  'created_at',
  'started_at',
  'finished_at',
  'result',
  'error',
  'last_event_id',
  'cancel_requested',
  'owner',
  'lease_until',
  'events_expire_at',
  'expires_at',
] as const satisfies readonly (keyof StoredRun)[];

/** The fields `updateRun` may change: anything else in a change is ignored. */
export const CHANGE_FIELDS = [
  'status',
  'started_at',
  'finished_at',
  'result',
  'error',
  'last_event_id',
  'cancel_requested',
  'lease_until',
  'events_expire_at',
  'expires_at',
] as const satisfies readonly (keyof RunChange)[];

/** One changed field and its new value. */
export type ChangeEntry = { [K in keyof RunChange]-?: [K, NonNullable<RunChange>[K]] }[keyof RunChange];

/** The fields `change` sets (those it names with a value other than `undefined`), in {@link CHANGE_FIELDS} order. */
export function changeEntries(change: RunChange): ChangeEntry[] {
  return CHANGE_FIELDS.flatMap((field) => (change[field] === undefined ? [] : [[field, change[field]] as ChangeEntry]));
}

/**
 * When `run` was created, in epoch ms, for listing; checks that it is a new unfinished run.
 * @throws TypeError for a run a caller should never store (a store bug, not a client's).
 */
export function checkNewRun(run: StoredRun): number {
  const created = Date.parse(run.created_at);
  if (!Number.isFinite(created) || created < 0) throw new TypeError(`run ${run.run_id}: created_at is not a time`);
  if (isFinishedRun(run.status)) throw new TypeError(`run ${run.run_id}: a new run is queued or running`);
  if (!Number.isSafeInteger(run.lease_until)) throw new TypeError(`run ${run.run_id}: lease_until is not a time`);
  return created;
}

/** Whether `value` is a usable `limit` (a positive safe integer). */
export const isLimit = (value: number): boolean => Number.isSafeInteger(value) && value > 0;

/** Whether `before` is a cursor a page of runs could have returned: absent, or a creation time in epoch ms. */
export const isCursor = (before: number | undefined): boolean =>
  before === undefined || (Number.isSafeInteger(before) && before >= 0);
