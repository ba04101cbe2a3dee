import { NotFoundError } from '../errors/not-found-error.js';
import type { AgentStore, SessionRef } from '../ports/agent-store.js';
import type { AgentRecord } from '../records.js';
import { SESSION_ID_PATTERN } from '../schemas.js';
import { agentShape } from './agent-records.js';

/** Longest id a caller can name: ids the service makes are far shorter. */
const MAX_ID_LENGTH = 128;

/** @throws TypeError for a missing account: a programming error of the caller, not a client's. */
export function requireAccount(accountId: string): void {
  if (typeof accountId !== 'string' || accountId.length === 0)
    throw new TypeError('AgentService: accountId must be a non-empty string');
}

/**
 * One agent of the account, in its current shape (see `agentShape`).
 * @throws NotFoundError when it does not exist or belongs to another account (the same error).
 */
export async function findAgent(store: AgentStore, accountId: string, agentId: string): Promise<AgentRecord> {
  requireAccount(accountId);
  // Ids this service makes are short; anything long cannot name an agent, so the store is spared it.
  const agent =
    typeof agentId === 'string' && agentId.length > 0 && agentId.length <= MAX_ID_LENGTH
      ? await store.getAgent(accountId, agentId)
      : undefined;
  if (!agent) throw new NotFoundError({ message: 'Agent not found' });
  return agentShape(agent);
}

/**
 * A session of one of the account's agents (which may not exist yet).
 * @throws NotFoundError for an unknown agent, or a session id no session can have.
 */
export async function findSessionRef(
  store: AgentStore,
  accountId: string,
  agentId: string,
  sessionId: string,
): Promise<SessionRef> {
  await findAgent(store, accountId, agentId);
  if (typeof sessionId !== 'string' || !SESSION_ID_PATTERN.test(sessionId))
    throw new NotFoundError({ message: 'Session not found' });
  return { accountId, agentId, sessionId };
}
