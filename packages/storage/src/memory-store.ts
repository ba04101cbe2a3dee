import type { AgentRecord, AgentStore, SessionMessage, SessionRef } from '@agenthost/core';

/**
 * Keeps everything in this process's memory: fast, and gone when the process ends. For development,
 * tests, and single-process deployments that need no durability.
 *
 * Every method finishes its work synchronously before its promise resolves, so appends never
 * interleave within the process.
 */
export class MemoryStore implements AgentStore {
  readonly #agents = new Map<string, Map<string, AgentRecord>>();
  readonly #sessions = new Map<string, SessionMessage[]>();

  async createAgent(accountId: string, agent: AgentRecord): Promise<void> {
    let agents = this.#agents.get(accountId);
    if (!agents) this.#agents.set(accountId, (agents = new Map()));
    agents.set(agent.agent_id, structuredClone(agent));
  }

  async getAgent(accountId: string, agentId: string): Promise<AgentRecord | undefined> {
    const agent = this.#agents.get(accountId)?.get(agentId);
    return agent && structuredClone(agent);
  }

  async listAgents(accountId: string): Promise<AgentRecord[]> {
    return [...(this.#agents.get(accountId)?.values() ?? [])].map((a) => structuredClone(a));
  }

  async appendMessages(session: SessionRef, messages: SessionMessage[]): Promise<void> {
    const key = sessionKey(session);
    const copies = structuredClone(messages);
    const history = this.#sessions.get(key);
    if (history) history.push(...copies);
    else this.#sessions.set(key, copies);
  }

  async readMessages(session: SessionRef, options: { last?: number } = {}): Promise<SessionMessage[]> {
    const history = this.#sessions.get(sessionKey(session)) ?? [];
    const from = options.last === undefined ? 0 : Math.max(0, history.length - options.last);
    return structuredClone(history.slice(from));
  }

  async close(): Promise<void> {}
}

// A JSON array cannot collide: ("a:b", "c") and ("a", "b:c") give different keys.
function sessionKey({ accountId, agentId, sessionId }: SessionRef): string {
  return JSON.stringify([accountId, agentId, sessionId]);
}
