import { NotFoundError } from '../errors/not-found-error.js';
import { releaseLock, takeLock } from '../locks/take-lock.js';
import type { AgentConfig, AgentRecord } from '../records.js';
import type { UpdateAgentInput } from '../schemas.js';
import type { ServiceSettings } from '../service-options.js';
import { agentChanges, changedAgent, changedConfig, sameConfig } from './agent-records.js';
import { findVersion, keepCurrentVersion } from './agent-versions.js';
import { findAgent } from './find-agent.js';
import { checkOffered } from './offered.js';

/**
 * Gives an agent the configuration `next` makes of its current one, as a new version; an unchanged
 * configuration leaves the record as it is (no new version). Changes of one agent take turns under
 * its lock (on every server sharing the locks), so versions are numbered one after another and no
 * change is lost.
 * @throws NotFoundError; InvalidInputError (what `next` throws, a model or tool not offered); ConflictError.
 */
async function changeAgent(
  settings: ServiceSettings,
  accountId: string,
  agentId: string,
  next: (current: AgentRecord) => Promise<AgentConfig> | AgentConfig,
): Promise<AgentRecord> {
  const { store, models, tools, locks, runWaitMs, now, maxOutputTokens } = settings;
  await findAgent(store, accountId, agentId);
  const key = `agent:${JSON.stringify([accountId, agentId])}`;
  const lease = await takeLock(locks, key, { waitMs: runWaitMs, busy: 'The agent is being changed; retry' });
  try {
    const current = await findAgent(store, accountId, agentId);
    const config = await next(current);
    if (sameConfig(config, current.config)) return current;
    checkOffered(models, tools, config, maxOutputTokens);
    await keepCurrentVersion(store, accountId, current);
    const agent = changedAgent(current, config, now());
    if (!(await store.updateAgent(accountId, agent))) throw new NotFoundError({ message: 'Agent not found' });
    return agent;
  } finally {
    await releaseLock(lease);
  }
}

/**
 * Changes some of an agent's configuration (see `AgentService.updateAgent`).
 * @throws NotFoundError; InvalidInputError; ConflictError.
 */
export async function updateAgent(
  settings: ServiceSettings,
  accountId: string,
  agentId: string,
  input: UpdateAgentInput,
): Promise<AgentRecord> {
  await findAgent(settings.store, accountId, agentId);
  const changes = agentChanges(input);
  return changeAgent(settings, accountId, agentId, (current) => changedConfig(current.config, changes));
}

/**
 * Makes an earlier version's configuration the agent's current one, as a new version.
 * @throws NotFoundError for an unknown agent or version; InvalidInputError when the version names a
 *   model or tool the server no longer offers; ConflictError.
 */
export async function restoreAgentVersion(
  settings: ServiceSettings,
  accountId: string,
  agentId: string,
  version: number,
): Promise<AgentRecord> {
  return changeAgent(settings, accountId, agentId, async (current) => {
    const found = await findVersion(settings.store, accountId, current, version);
    return { ...found.config, agent_id: current.agent_id };
  });
}
