import { NotFoundError } from '../../errors/not-found-error.js';
import type { RunStore, StoredRun } from '../../ports/run-store.js';

/** Longest run id a caller can name: ids the service makes are far shorter. */
const MAX_RUN_ID_LENGTH = 128;

/**
 * A background run of the account.
 * @throws NotFoundError when there is no such run or it belongs to another account (the same error).
 */
export async function findRun(runs: RunStore, accountId: string, runId: string): Promise<StoredRun> {
  const run =
    typeof runId === 'string' && runId.length > 0 && runId.length <= MAX_RUN_ID_LENGTH
      ? await runs.getRun(accountId, runId)
      : undefined;
  if (!run) throw new NotFoundError({ message: 'Run not found' });
  return run;
}
