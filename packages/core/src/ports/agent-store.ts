import type { AgentRecord, SessionMessage } from '../records.js';

/** Names one conversation. Sessions belong to (account, agent): the same `sessionId` elsewhere is another one. */
export interface SessionRef {
  accountId: string;
  agentId: string;
  sessionId: string;
}

/**
 * The storage port, version 1. Every backend runs the storage contract suite
 * (`@agenthost/storage/test`), which checks each guarantee below.
 *
 * A backend must guarantee:
 * - **Isolation**: nothing stored under one account is returned for another.
 * - **Read-your-writes**: once a returned promise resolves, every later call sees the write.
 * - **Atomic appends**: {@link AgentStore.appendMessages} stores all of its messages or none, and
 *   concurrent appends to one session never interleave their messages or lose one.
 * - **Order**: agents list oldest first; messages read back in the order they were appended.
 * - **Copies**: a record handed in or returned is never shared with the store's own state.
 * - **Errors**: an operation that could not be done rejects; it never resolves as if it had succeeded.
 */
export interface AgentStore {
  /** Stores a new agent under `accountId`. `agent.agent_id` is unique (server-made). */
  createAgent(accountId: string, agent: AgentRecord): Promise<void>;
  /** The agent, or `undefined` when it does not exist under `accountId`. */
  getAgent(accountId: string, agentId: string): Promise<AgentRecord | undefined>;
  /** The account's agents, oldest first. */
  listAgents(accountId: string): Promise<AgentRecord[]>;
  /** Appends messages to a session (creating it when new), all or nothing, in order. */
  appendMessages(session: SessionRef, messages: SessionMessage[]): Promise<void>;
  /**
   * A session's messages in order, or `[]` for an unknown session. With `last`, only the newest
   * `last` messages (still oldest first).
   */
  readMessages(session: SessionRef, options?: { last?: number }): Promise<SessionMessage[]>;
  /** Releases connections. Optional. */
  close?(): Promise<void>;
}
