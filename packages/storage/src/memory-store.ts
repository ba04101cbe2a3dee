import type {
  AgentPage,
  AgentRecord,
  AgentStore,
  AgentVersion,
  ApiKeyRecord,
  ApiKeyStore,
  HostSecretStore,
  IdempotencyRecord,
  IdempotencyStore,
  MessageWindow,
  PendingTurn,
  SessionInfo,
  SessionMessage,
  SessionPage,
  SessionRef,
  VersionPage,
} from '@agenthost/core';
import { matchesMetadata, memoryIdempotencyStore } from '@agenthost/core';

// Records are plain JSON (every other backend stores them as JSON): the store keeps each one's JSON text
// made when it is written and hands out `JSON.parse` of it, a copy the caller cannot change what is
// stored through, and cheaper than `structuredClone` of the record.

/** An agent as kept: its JSON text, and a parse of it the store reads itself and never hands out. */
interface StoredAgent {
  text: string;
  record: AgentRecord;
}

function storedAgent(agent: AgentRecord): StoredAgent {
  const text = JSON.stringify(agent);
  return { text, record: JSON.parse(text) as AgentRecord };
}

const agentOf = (stored: StoredAgent) => JSON.parse(stored.text) as AgentRecord;

interface StoredSession {
  info: SessionInfo;
  /** Each message's JSON text. */
  messages: string[];
  /** Position in the agent's session index. */
  pos: number;
  /** The turn that waits for approval of tool calls, if any. */
  pending?: PendingTurn;
}

/**
 * Keeps everything in this process's memory: fast, and gone when the process ends. For development,
 * tests, and single-process deployments that need no durability.
 *
 * Every method finishes its work synchronously before its promise resolves, so appends never
 * interleave within the process.
 */
export class MemoryStore implements AgentStore, ApiKeyStore, IdempotencyStore, HostSecretStore {
  readonly #agents = new Map<string, Map<string, StoredAgent>>();
  /** Per account: agent ids by position, `undefined` where one was deleted. */
  readonly #agentIndexes = new Map<string, (string | undefined)[]>();
  readonly #sessions = new Map<string, StoredSession>();
  /** Per (account, agent): session ids by position, `undefined` where one was deleted. */
  readonly #indexes = new Map<string, (string | undefined)[]>();
  /** Per (account, agent): kept versions by number. */
  readonly #versions = new Map<string, Map<number, AgentVersion>>();

  async createAgent(accountId: string, agent: AgentRecord): Promise<void> {
    this.#keepVersion(accountId, agent);
    const agents = this.#agents.get(accountId) ?? new Map<string, StoredAgent>();
    this.#agents.set(accountId, agents);
    agents.set(agent.agent_id, storedAgent(agent));
    const index = this.#agentIndexes.get(accountId) ?? [];
    this.#agentIndexes.set(accountId, index);
    index.push(agent.agent_id);
  }

  async listAgentsPage(
    accountId: string,
    {
      limit,
      after,
      order,
      metadata,
    }: { limit: number; after?: number; order: 'asc' | 'desc'; metadata?: Readonly<Record<string, string>> },
  ): Promise<AgentPage> {
    const index = this.#agentIndexes.get(accountId) ?? [];
    const agents: AgentRecord[] = [];
    const step = order === 'asc' ? 1 : -1;
    let pos = after === undefined ? (order === 'asc' ? 0 : index.length - 1) : after + step;
    for (; pos >= 0 && pos < index.length && agents.length < limit; pos += step) {
      const id = index[pos];
      const agent = id === undefined ? undefined : this.#agents.get(accountId)?.get(id);
      if (agent && (!metadata || matchesMetadata(agent.record, metadata))) agents.push(agentOf(agent));
    }
    const rest = order === 'asc' ? index.slice(pos) : index.slice(0, Math.max(0, pos + 1));
    return { agents, next: agents.length > 0 && rest.some((id) => id !== undefined) ? pos - step : null };
  }

  async updateAgent(accountId: string, agent: AgentRecord): Promise<boolean> {
    const agents = this.#agents.get(accountId);
    if (!agents?.has(agent.agent_id)) return false;
    this.#keepVersion(accountId, agent);
    agents.set(agent.agent_id, storedAgent(agent));
    return true;
  }

  async deleteAgent(accountId: string, agentId: string): Promise<boolean> {
    if (!this.#agents.get(accountId)?.delete(agentId)) return false;
    const index = this.#agentIndexes.get(accountId) ?? [];
    index[index.indexOf(agentId)] = undefined;
    for (const sessionId of this.#indexes.get(JSON.stringify([accountId, agentId])) ?? []) {
      if (sessionId !== undefined) this.#sessions.delete(sessionKey({ accountId, agentId, sessionId }));
    }
    this.#indexes.delete(JSON.stringify([accountId, agentId]));
    this.#versions.delete(JSON.stringify([accountId, agentId]));
    return true;
  }

  async getAgentVersion(accountId: string, agentId: string, version: number): Promise<AgentVersion | undefined> {
    const kept = this.#versions.get(JSON.stringify([accountId, agentId]))?.get(version);
    return kept && structuredClone(kept);
  }

  async listAgentVersions(
    accountId: string,
    agentId: string,
    { limit, before }: { limit: number; before?: number },
  ): Promise<VersionPage> {
    const kept = this.#versions.get(JSON.stringify([accountId, agentId]));
    const top = this.#agents.get(accountId)?.get(agentId)?.record.version ?? 0;
    const versions: AgentVersion[] = [];
    let n = Math.min(before ?? top + 1, top + 1) - 1;
    for (; n >= 1 && versions.length < limit; n--) {
      const version = kept?.get(n);
      if (version) versions.push(structuredClone(version));
    }
    return { versions, next: n >= 1 && versions.length > 0 ? n + 1 : null };
  }

  /** Keeps `agent`'s configuration as its version `agent.version`. */
  #keepVersion(accountId: string, agent: AgentRecord): void {
    // A record of the old shape (no version) has none to keep: the service reads it as version 1.
    if (typeof agent.version !== 'number') return;
    const key = JSON.stringify([accountId, agent.agent_id]);
    const kept = this.#versions.get(key) ?? new Map<number, AgentVersion>();
    this.#versions.set(key, kept);
    kept.set(agent.version, {
      agent_id: agent.agent_id,
      version: agent.version,
      config: structuredClone(agent.config),
      created_at: agent.updated_at,
    });
  }

  async getAgent(accountId: string, agentId: string): Promise<AgentRecord | undefined> {
    const agent = this.#agents.get(accountId)?.get(agentId);
    return agent && agentOf(agent);
  }

  async listAgents(accountId: string): Promise<AgentRecord[]> {
    const agents = this.#agents.get(accountId);
    return (this.#agentIndexes.get(accountId) ?? []).flatMap((id) => {
      const agent = id === undefined ? undefined : agents?.get(id);
      return agent ? [agentOf(agent)] : [];
    });
  }

  async appendMessages(session: SessionRef, messages: SessionMessage[], pending?: PendingTurn | null): Promise<void> {
    const key = sessionKey(session);
    let stored = this.#sessions.get(key);
    // The first time a session is written: its first message's, or its pending turn's.
    const first = messages[0]?.created_at ?? pending?.created_at;
    if (!stored) {
      if (first === undefined) return;
      const index = this.#index(session.accountId, session.agentId);
      stored = {
        info: { session_id: session.sessionId, created_at: first, updated_at: first, message_count: 0 },
        messages: [],
        pos: index.length,
      };
      index.push(session.sessionId);
      this.#sessions.set(key, stored);
    }
    for (const message of messages) stored.messages.push(JSON.stringify(message));
    stored.info.message_count = stored.messages.length;
    if (messages.length > 0) stored.info.updated_at = messages.at(-1)!.created_at;
    if (pending === null) delete stored.pending;
    else if (pending !== undefined) stored.pending = structuredClone(pending);
  }

  async getPendingTurn(session: SessionRef): Promise<PendingTurn | undefined> {
    const pending = this.#sessions.get(sessionKey(session))?.pending;
    return pending && structuredClone(pending);
  }

  async readMessages(session: SessionRef, window: MessageWindow = {}): Promise<SessionMessage[]> {
    const history = this.#sessions.get(sessionKey(session))?.messages ?? [];
    if ('offset' in window) return messagesOf(history.slice(window.offset, window.offset + window.limit));
    const from = window.last === undefined ? 0 : Math.max(0, history.length - window.last);
    return messagesOf(history.slice(from));
  }

  async getSession(session: SessionRef): Promise<SessionInfo | undefined> {
    const stored = this.#sessions.get(sessionKey(session));
    return stored && structuredClone(stored.info);
  }

  async listSessions(
    accountId: string,
    agentId: string,
    { limit, before }: { limit: number; before?: number },
  ): Promise<SessionPage> {
    const index = this.#indexes.get(JSON.stringify([accountId, agentId])) ?? [];
    const sessions: SessionInfo[] = [];
    let pos = Math.min(before ?? index.length, index.length) - 1;
    for (; pos >= 0 && sessions.length < limit; pos--) {
      const id = index[pos];
      const stored =
        id === undefined ? undefined : this.#sessions.get(sessionKey({ accountId, agentId, sessionId: id }));
      if (stored) sessions.push(structuredClone(stored.info));
    }
    const more = index.slice(0, pos + 1).some((id) => id !== undefined);
    return { sessions, next: more ? pos + 1 : null };
  }

  async deleteSession(session: SessionRef): Promise<boolean> {
    const key = sessionKey(session);
    const stored = this.#sessions.get(key);
    if (!stored) return false;
    this.#sessions.delete(key);
    this.#index(session.accountId, session.agentId)[stored.pos] = undefined;
    return true;
  }

  readonly #keys = new Map<string, ApiKeyRecord>();

  async createKey(record: ApiKeyRecord): Promise<void> {
    this.#keys.set(record.key_id, structuredClone(record));
  }

  async findKeyByDigest(digest: string): Promise<ApiKeyRecord | undefined> {
    for (const record of this.#keys.values()) if (record.digest === digest) return structuredClone(record);
    return undefined;
  }

  async getKey(keyId: string): Promise<ApiKeyRecord | undefined> {
    const record = this.#keys.get(keyId);
    return record && structuredClone(record);
  }

  async listKeys(): Promise<ApiKeyRecord[]> {
    return [...this.#keys.values()].map((r) => structuredClone(r));
  }

  async updateKey(record: ApiKeyRecord): Promise<boolean> {
    const stored = this.#keys.get(record.key_id);
    if (!stored) return false;
    this.#keys.set(record.key_id, {
      ...structuredClone(record),
      digest: stored.digest,
      revoked_at: stored.revoked_at ?? record.revoked_at,
    });
    return true;
  }

  async moveKey(keyId: string, from: string, to: string): Promise<boolean> {
    const stored = this.#keys.get(keyId);
    if (stored?.digest !== from) return false;
    stored.digest = to;
    return true;
  }

  #hostSecret: string | undefined;

  async getHostSecret(): Promise<string | undefined> {
    return this.#hostSecret;
  }

  async createHostSecret(candidate: string): Promise<string> {
    this.#hostSecret ??= candidate;
    return this.#hostSecret;
  }

  readonly #idempotency = memoryIdempotencyStore();

  getIdempotency(key: string): Promise<IdempotencyRecord | undefined> {
    return this.#idempotency.getIdempotency(key);
  }

  putIdempotency(key: string, record: IdempotencyRecord, ttlMs: number): Promise<void> {
    return this.#idempotency.putIdempotency(key, record, ttlMs);
  }

  deleteIdempotency(key: string): Promise<void> {
    return this.#idempotency.deleteIdempotency(key);
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {}

  #index(accountId: string, agentId: string): (string | undefined)[] {
    const key = JSON.stringify([accountId, agentId]);
    const index = this.#indexes.get(key) ?? [];
    this.#indexes.set(key, index);
    return index;
  }
}

// A JSON array cannot collide: ("a:b", "c") and ("a", "b:c") give different keys.
function sessionKey({ accountId, agentId, sessionId }: SessionRef): string {
  return JSON.stringify([accountId, agentId, sessionId]);
}

/** The messages of their JSON texts, parsed at once. */
function messagesOf(texts: string[]): SessionMessage[] {
  return JSON.parse(`[${texts.join(',')}]`) as SessionMessage[];
}
