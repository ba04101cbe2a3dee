import type { AgentRecord, AgentVersion, PendingTurn, SessionInfo, SessionMessage } from '../records.js';

/** Names one conversation. Sessions belong to (account, agent): the same `sessionId` elsewhere is another one. */
export interface SessionRef {
  accountId: string;
  agentId: string;
  sessionId: string;
}

/** Which messages of a session to read: the newest `last`, or `limit` from position `offset` (0 = oldest). */
export type MessageWindow = { last?: number } | { offset: number; limit: number };

/** One page of an account's agents. */
export interface AgentPage {
  agents: AgentRecord[];
  /** Pass as `after` to get the next page; `null` when there is none. */
  next: number | null;
}

/** One page of an agent's versions, newest first. */
export interface VersionPage {
  versions: AgentVersion[];
  /** Pass as `before` to get the next (older) page; `null` when there is none. */
  next: number | null;
}

/** One page of an agent's sessions, newest first. */
export interface SessionPage {
  sessions: SessionInfo[];
  /** Pass as `before` to get the next (older) page; `null` when there is none. */
  next: number | null;
}

/**
 * The storage port, version 3 (2 and agent versions, metadata filters, message parts, pending turns). Every backend runs the storage contract suite
 * (`@agenthost/storage/test`), which checks each guarantee below.
 *
 * A backend must guarantee:
 * - **Isolation**: nothing stored under one account is returned for another.
 * - **Read-your-writes**: once a returned promise resolves, every later call sees the write.
 * - **Atomic appends**: {@link AgentStore.appendMessages} stores all of its messages or none, and
 *   concurrent appends to one session never interleave their messages or lose one.
 * - **Order**: agents list oldest first; messages read back in the order they were appended.
 * - **Versions**: creating or changing an agent keeps its configuration as version `agent.version`,
 *   in the same write as the record (a reader never sees a record whose version is not kept).
 * - **Fidelity**: messages (with their `parts`) and pending turns read back deep-equal to what was written.
 * - **Copies**: a record handed in or returned is never shared with the store's own state.
 * - **Errors**: an operation that could not be done rejects; it never resolves as if it had succeeded.
 */
export interface AgentStore {
  /**
   * Stores a new agent under `accountId`, and its configuration as version `agent.version` (1).
   * `agent.agent_id` is unique (server-made).
   */
  createAgent(accountId: string, agent: AgentRecord): Promise<void>;
  /** The agent, or `undefined` when it does not exist under `accountId`. */
  getAgent(accountId: string, agentId: string): Promise<AgentRecord | undefined>;
  /** The account's agents, oldest first. */
  listAgents(accountId: string): Promise<AgentRecord[]>;
  /**
   * One page of the account's agents: `asc` is oldest first, `desc` newest first; `after` is the
   * `next` of the previous page. The cost is that of the page, not of the account's history.
   */
  listAgentsPage(
    accountId: string,
    options: {
      limit: number;
      after?: number;
      order: 'asc' | 'desc';
      /**
       * Only agents whose `metadata` has every one of these pairs. Then the cost is that of the
       * agents passed over to fill the page.
       */
      metadata?: Readonly<Record<string, string>>;
    },
  ): Promise<AgentPage>;
  /**
   * Replaces a stored agent's record and keeps its configuration as version `agent.version` (the
   * caller numbers versions one after another, under the agent's lock); `false` when the agent does
   * not exist under `accountId` (then nothing is written).
   */
  updateAgent(accountId: string, agent: AgentRecord): Promise<boolean>;
  /** One kept version of an agent, or `undefined` (unknown agent, account or version). */
  getAgentVersion(accountId: string, agentId: string, version: number): Promise<AgentVersion | undefined>;
  /**
   * An agent's kept versions, newest first: at most `limit`, below version `before` when given.
   * The cost is that of the page.
   */
  listAgentVersions(
    accountId: string,
    agentId: string,
    options: { limit: number; before?: number },
  ): Promise<VersionPage>;
  /** Deletes an agent, its versions and all of its sessions; `false` when it does not exist under `accountId`. */
  deleteAgent(accountId: string, agentId: string): Promise<boolean>;
  /**
   * Appends messages to a session (creating it when new), all or nothing, in order. With `pending`,
   * also sets (a turn) or clears (`null`) the session's pending turn in the same write: both happen
   * or neither. `messages` may then be empty (a new session whose first turn waits for approval
   * exists, with no messages).
   */
  appendMessages(session: SessionRef, messages: SessionMessage[], pending?: PendingTurn | null): Promise<void>;
  /** The session's pending turn (one that waits for approval of tool calls), or `undefined`. */
  getPendingTurn(session: SessionRef): Promise<PendingTurn | undefined>;
  /**
   * A session's messages in order, or `[]` for an unknown session. With `last`, only the newest
   * `last` messages (still oldest first); with `offset` and `limit`, that page. The cost is that of
   * the messages returned, not of the session's length.
   */
  readMessages(session: SessionRef, window?: MessageWindow): Promise<SessionMessage[]>;
  /** What is known of a session, or `undefined` when it has neither messages nor a pending turn. */
  getSession(session: SessionRef): Promise<SessionInfo | undefined>;
  /**
   * An agent's sessions, newest (first stored) first: at most `limit`, starting below position
   * `before` when given. The cost is that of the page, not of the agent's history.
   */
  listSessions(accountId: string, agentId: string, options: { limit: number; before?: number }): Promise<SessionPage>;
  /** Deletes a session, its messages and its pending turn; `false` when there was none. A later append starts it anew. */
  deleteSession(session: SessionRef): Promise<boolean>;
  /** Resolves when the backend answers, rejects when it cannot be reached (for readiness checks). Optional. */
  ping?(): Promise<void>;
  /** Releases connections. Optional. */
  close?(): Promise<void>;
}
