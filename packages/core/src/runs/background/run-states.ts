import type { RunStatus } from '../../records.js';

/** The statuses of a background run that has not finished: it counts against its account's in-flight limit. */
export const UNFINISHED_RUN_STATUSES: readonly RunStatus[] = Object.freeze(['queued', 'running']);

/** Whether a run in this status has finished (`completed`, `requires_approval`, `failed` or `cancelled`). */
export function isFinishedRun(status: RunStatus): boolean {
  return !UNFINISHED_RUN_STATUSES.includes(status);
}
