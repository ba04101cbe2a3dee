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
}

/** The result of running an agent. */
export interface RunResult {
  output: string;
  session_id: string;
  metadata: RunMetadata;
}
