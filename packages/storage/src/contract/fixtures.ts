import { type AgentRecord, type AgentStore, agentShape } from '@agenthost/core';

/** One contract case: `peer()` opens another store of the same scope, closed with the first. */
export type ContractCase = (store: AgentStore, peer: () => Promise<AgentStore>) => Promise<void>;

/** Contract cases by name. */
export type ContractCases = Record<string, ContractCase>;

let sequence = 0;
/** A name no other case of this process uses, starting with `prefix`. */
export const unique = (prefix: string) => `${prefix}-${process.pid}-${Date.now().toString(36)}-${++sequence}`;

/** An agent record of the current shape: version 1, every setting at its default. */
export function agent(
  id: string,
  name = 'Agent',
  at = '2026-01-01T00:00:00.000Z',
  metadata: Record<string, string> = {},
): AgentRecord {
  const config = { agent_id: id, name, instruction: 'Be helpful.', model: 'echo', tool: null, component: 'Chat' };
  return agentShape({ agent_id: id, name, config: { ...config, metadata }, created_at: at, updated_at: at });
}
