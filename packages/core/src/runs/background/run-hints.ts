import type { RunSignal, RunStore } from '../../ports/run-store.js';

/**
 * Subscribes to a run's signals, which are hints: when the store cannot subscribe now (its signal
 * connection is reconnecting), the caller goes on by polling, with nothing to unsubscribe.
 */
export async function listenForHints(
  runs: RunStore,
  runId: string,
  listener: (signal: RunSignal) => void,
): Promise<() => Promise<void>> {
  try {
    const unsubscribe = await runs.subscribe(runId, listener);
    return () => unsubscribe().catch(() => undefined);
  } catch {
    return async () => {};
  }
}

/** Publishes a hint about a run; a store that cannot say it now leaves the others to poll. */
export async function hint(runs: RunStore, runId: string, signal: RunSignal): Promise<void> {
  await runs.publish(runId, signal).catch(() => undefined);
}
