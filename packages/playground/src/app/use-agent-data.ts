import type { MetadataFilter } from './agent-picker';
import { type Agent, type AgentVersion, agentPath, agentsPath, type SessionInfo } from './api';
import { useApiData } from './use-api';

/**
 * What the playground reads of the account: the agents (filtered by a metadata pair), and of the
 * chosen agent its record, its newest 100 versions and its sessions; each with a way to read it again.
 */
export function useAgentData(apiKey: string, agentId: string | undefined, filter: MetadataFilter | undefined) {
  const path = agentId && agentPath(agentId);
  const agents = useApiData<Agent[]>(apiKey, agentsPath(filter));
  const agent = useApiData<Agent>(apiKey, path);
  const versions = useApiData<{ versions: AgentVersion[]; next_cursor: string | null }>(
    apiKey,
    path && `${path}/versions?limit=100`,
  );
  const sessions = useApiData<{ sessions: SessionInfo[] }>(apiKey, path && `${path}/sessions`);
  return { agents, agent, versions, sessions };
}
