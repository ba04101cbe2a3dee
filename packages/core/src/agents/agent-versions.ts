import type { AgentStore } from '../ports/agent-store.js';
import type { AgentConfig, AgentRecord } from '../records.js';

/**
 * The configuration a run uses: the agent's current one, or that of the version the run names.
 * @throws NotFoundError naming the version when the agent has no such version.
 */
export async function configForRun(
  _store: AgentStore,
  _accountId: string,
  agent: AgentRecord,
  version: number | undefined | null,
): Promise<{ config: AgentConfig; version: number }> {
  // Placeholder until versions are kept.
  void version;
  return { config: agent.config, version: agent.version ?? 1 };
}
