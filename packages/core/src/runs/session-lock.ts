import { takeLock } from '../locks/take-lock.js';
import type { SessionRef } from '../ports/agent-store.js';
import type { Lease } from '../ports/lock-provider.js';
import type { ServiceSettings } from '../service-options.js';

/**
 * Takes a session's lock, which a run holds from before it reads the history until after it stored
 * its turn, so that runs of one session take turns, on every server sharing the lock provider.
 * @throws ConflictError when an earlier run holds it past `runWaitMs`; the signal's reason on abort.
 */
export function lockSession(
  settings: Pick<ServiceSettings, 'locks' | 'runWaitMs'>,
  session: SessionRef,
  signal: AbortSignal | undefined,
): Promise<Lease> {
  return takeLock(settings.locks, `run:${JSON.stringify([session.accountId, session.agentId, session.sessionId])}`, {
    waitMs: settings.runWaitMs,
    busy: 'Another run of this session is still in progress; retry when it has finished',
    signal,
  });
}
