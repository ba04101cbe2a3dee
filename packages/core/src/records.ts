/**
 * The data model. Records use the same snake_case field names in every transport (in-process, HTTP),
 * so that what a Node caller sees is what an HTTP client sees.
 */

/** An agent's configuration as stored and returned. */
export interface AgentConfig {
  agent_id: string;
  name: string;
  /** The system instruction sent with every run. */
  instruction: string;
  /** A model name that the service's model port supports. */
  model: string;
  /** A tool integration name from the tool port, or `null` for none. */
  tool: string | null;
  /** A free label for the client's UI; `Chat` unless given. */
  component: string;
}

/** An agent as returned by create, get and list. Timestamps are ISO 8601 UTC with milliseconds. */
export interface AgentRecord {
  agent_id: string;
  name: string;
  config: AgentConfig;
  created_at: string;
  updated_at: string;
}

/** One message of a conversation. A turn is a `user` message directly followed by its `assistant` reply. */
export interface SessionMessage {
  role: 'user' | 'assistant';
  content: string;
  created_at: string;
}

/** What is known of a conversation without reading its messages. */
export interface SessionInfo {
  session_id: string;
  /** When its first message was stored. */
  created_at: string;
  /** When its last message was stored. */
  updated_at: string;
  message_count: number;
}

/** Token counts of a run, over all of its model steps; `total` is always `prompt + completion`. */
export interface TokenUsage {
  prompt: number;
  completion: number;
  total: number;
}

/** What a run reports besides its output. */
export interface RunMetadata {
  model: string;
  /** The tool integration the run called, or `null` when it called none. */
  tool_used: string | null;
  tokens: TokenUsage;
  /**
   * How many earlier messages of the session were left out of the prompt to fit the model's
   * context budget (oldest first); 0 when the whole conversation was sent.
   */
  omitted_messages: number;
  /**
   * An estimate of what the run cost, in US dollars: its tokens at the model's list price (from the
   * model catalog), before discounts, caching and tiers. Absent when the price is not known.
   */
  cost?: number;
}

/** What a streamed run reports as it goes; exactly one `done` ends a stream that did not fail. */
export type RunEvent =
  | { type: 'text-delta'; delta: string }
  | { type: 'tool-call'; tool_call_id: string; tool_name: string; input: unknown }
  | { type: 'tool-result'; tool_call_id: string; tool_name: string; output: unknown }
  | { type: 'tool-error'; tool_call_id: string; tool_name: string; error: string }
  | { type: 'done'; result: RunResult };

/** A streamed run's events, and the session it runs in (known from the start, a new session's id too). */
export type RunEvents = AsyncIterable<RunEvent> & { readonly session_id: string };

/** A session with one page of its messages. */
export interface SessionWithMessages extends SessionInfo {
  messages: SessionMessage[];
  /** Pass as `cursor` for the next page of messages; `null` at the end. */
  next_cursor: string | null;
}

/** One page of an account's agents. */
export interface AgentList {
  agents: AgentRecord[];
  /** Pass as `cursor` for the next page; `null` at the end. */
  next_cursor: string | null;
}

/** One page of an agent's sessions, newest first. */
export interface SessionList {
  sessions: SessionInfo[];
  /** Pass as `cursor` for the next (older) page; `null` at the end. */
  next_cursor: string | null;
}

/** The result of running an agent. */
export interface RunResult {
  output: string;
  session_id: string;
  metadata: RunMetadata;
}
