import type { AgentService } from '@agenthost/core';

/**
 * Reads a request body with `read`; when it throws (a bad body), the agent is looked up first, so
 * that an unknown agent (or another account's) is a 404 whatever the body, and only a known
 * agent's request gets the body's 400.
 */
export async function agentFirst<T>(
  service: AgentService,
  accountId: string,
  agentId: string,
  read: () => T,
): Promise<T> {
  try {
    return read();
  } catch (error) {
    await service.getAgent(accountId, agentId);
    throw error;
  }
}
