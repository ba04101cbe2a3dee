import type { RunStore, StoredRun } from '../../ports/run-store.js';
import { findRun } from './find-run.js';
import { isFinishedRun, UNFINISHED_RUN_STATUSES } from './run-states.js';

/** How long a cancel waits for the run to end before it answers with the run as it is. */
const CANCEL_WAIT_MS = 2000;
/** How often it looks at the run meanwhile (signals are hints). */
const CANCEL_POLL_MS = 100;

/**
 * Asks the server running a background run to stop it: marks the run (which that server's lease
 * renewals also read, should the signal be lost), tells every server, then waits for the run to end,
 * up to about two seconds. A finished run is answered as it is.
 * @throws NotFoundError.
 */
export async function cancelRun(runs: RunStore, accountId: string, runId: string): Promise<StoredRun> {
  const run = await findRun(runs, accountId, runId);
  if (isFinishedRun(run.status)) return run;
  let ended = false;
  let wake = () => {};
  const unsubscribe = await runs.subscribe(runId, (signal) => {
    if (signal.type !== 'end') return;
    ended = true;
    wake();
  });
  try {
    const marked = await runs.updateRun(accountId, runId, UNFINISHED_RUN_STATUSES, { cancel_requested: true });
    if (marked) await runs.publish(runId, { type: 'cancel' });
    const deadline = Date.now() + CANCEL_WAIT_MS;
    for (;;) {
      const now = await findRun(runs, accountId, runId);
      if (ended || isFinishedRun(now.status) || Date.now() >= deadline) return now;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(CANCEL_POLL_MS, deadline - Date.now()));
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  } finally {
    await unsubscribe();
  }
}
