/**
 * The data model. Records use the same snake_case field names in every transport (in-process, HTTP),
 * so that what a Node caller sees is what an HTTP client sees.
 */

/** An agent's configuration as stored and returned: what a version of the agent is. */
export interface AgentConfig {
  agent_id: string;
  name: string;
  /** The system instruction sent with every run. */
  instruction: string;
  /** A model name that the service's model port supports. */
  model: string;
  /** The first of `tools`, or `null` when there is none: the single-tool form older clients read and write. */
  tool: string | null;
  /** The tool integrations the agent may call (built-in, `mcp:<name>`, registered in code), in order. */
  tools: string[];
  /**
   * Which tool calls wait for a person's approval: names of the agent's tool integrations (every tool
   * of the integration) or of single tools the model sees.
   */
  require_approval: string[];
  /** A free label for the client's UI; `Chat` unless given. */
  component: string;
  /** Sampling temperature, 0 to 2; `null` for the model's default. */
  temperature: number | null;
  /** Nucleus sampling, 0 to 1; `null` for the model's default. */
  top_p: number | null;
  /** Most tokens an answer may have (never above the server's bound); `null` for the server's bound. */
  max_output_tokens: number | null;
  /** Models tried in order when the model (then each one before) fails with a provider error. */
  fallback_models: string[];
  /** Free string pairs for the client (at most 16); filterable in the agent list. */
  metadata: Record<string, string>;
}

/** An agent as returned by create, get and list. Timestamps are ISO 8601 UTC with milliseconds. */
export interface AgentRecord {
  agent_id: string;
  name: string;
  config: AgentConfig;
  /** The same as `config.metadata`. */
  metadata: Record<string, string>;
  /** The current version's number: 1 when created, one more with every change. */
  version: number;
  created_at: string;
  updated_at: string;
}

/** One version of an agent: the configuration it had from `created_at` until the next version. */
export interface AgentVersion {
  agent_id: string;
  version: number;
  config: AgentConfig;
  created_at: string;
}

/** One page of an agent's versions, newest first. */
export interface AgentVersionList {
  versions: AgentVersion[];
  /** Pass as `cursor` for the next (older) page; `null` at the end. */
  next_cursor: string | null;
}

/** Text of a message. */
export interface TextPart {
  type: 'text';
  text: string;
}

/** An image of a user's input: at `url` (https), or its bytes as base64 `data`. */
export interface ImagePart {
  type: 'image';
  media_type: string;
  url?: string;
  data?: string;
}

/** A file of a user's input (a PDF, a text file...): at `url` (https), or its bytes as base64 `data`. */
export interface FilePart {
  type: 'file';
  media_type: string;
  filename?: string;
  url?: string;
  data?: string;
}

/** A tool call the model made. */
export interface ToolCallPart {
  type: 'tool-call';
  tool_call_id: string;
  tool_name: string;
  input: unknown;
}

/** What a tool call returned; `is_error` when the tool failed (then `output` is the error's text) or was denied. */
export interface ToolResultPart {
  type: 'tool-result';
  tool_call_id: string;
  tool_name: string;
  output: unknown;
  is_error?: boolean;
}

/** A tool call that waits for a person's approval before it runs. */
export interface ToolApprovalRequestPart {
  type: 'tool-approval-request';
  approval_id: string;
  tool_call_id: string;
}

/** A person's answer to an approval request, with the reason they gave. */
export interface ToolApprovalResponsePart {
  type: 'tool-approval-response';
  approval_id: string;
  approved: boolean;
  reason?: string;
}

/** One typed part of a message, in the order it happened. */
export type MessagePart =
  | TextPart
  | ImagePart
  | FilePart
  | ToolCallPart
  | ToolResultPart
  | ToolApprovalRequestPart
  | ToolApprovalResponsePart;

/**
 * One message of a conversation. A turn is a `user` message directly followed by its `assistant` reply.
 * `content` is the message's text; `parts` is all of it in order: a user's text, images and files; an
 * assistant's tool calls, their results and approvals, and text. As returned by the service, `parts`
 * is always there (a text-only message has one text part); as stored, it may be left out for one.
 */
export interface SessionMessage {
  role: 'user' | 'assistant';
  content: string;
  parts?: MessagePart[];
  created_at: string;
}

/** A tool call that waits for approval: answer it with `AgentService.respondToApproval`. */
export interface PendingApproval {
  approval_id: string;
  tool_call_id: string;
  tool_name: string;
  input: unknown;
}

/**
 * A turn that stopped for approval of tool calls, kept with its session until every approval is
 * answered; then the run goes on and the whole turn is stored as one.
 */
export interface PendingTurn {
  /** The user's message that started the turn. */
  user: SessionMessage;
  /** What the assistant did so far (tool calls, results, approval requests and answers), in order. */
  parts: MessagePart[];
  /** The approvals still unanswered. */
  approvals: PendingApproval[];
  /** The version of the agent the turn runs on. */
  agent_version: number;
  /** The model that made the calls waiting for approval. */
  model: string;
  /** Tokens used so far by the turn. */
  tokens: TokenUsage;
  /** The JSON answer the turn's run asked for, asked again when the turn goes on; absent for text. */
  output_format?: { json_mode?: boolean; json_format?: Record<string, unknown> | string };
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
  /** The model that answered (a fallback model when the agent's model failed). */
  model: string;
  /** The version of the agent the run used. */
  agent_version: number;
  /** The first tool integration the run called, or `null` when it called none. */
  tool_used: string | null;
  /** Every tool integration the run called, in the order of their first call. */
  tools_used: string[];
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
  | ({ type: 'approval-request' } & PendingApproval)
  | { type: 'done'; result: RunResult };

/** A streamed run's events, and the session it runs in (known from the start, a new session's id too). */
export type RunEvents = AsyncIterable<RunEvent> & { readonly session_id: string };

/** A session with one page of its messages. */
export interface SessionWithMessages extends SessionInfo {
  /** Tool calls of the session's last turn that wait for approval; empty when none. */
  pending_approvals: PendingApproval[];
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

/**
 * The result of running an agent. `status` is `completed`, or `requires_approval` when the run stopped
 * for tool calls that wait for approval (listed in `pending_approvals`; `output` is the text so far).
 */
export interface RunResult {
  output: string;
  session_id: string;
  status: 'completed' | 'requires_approval';
  pending_approvals: PendingApproval[];
  metadata: RunMetadata;
}

/**
 * Where a background run is: `queued` (accepted, waiting for its session), `running`, or finished:
 * `completed`, `requires_approval` (stopped for tool calls that wait for approval), `failed`,
 * `cancelled`.
 */
export type RunStatus = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled' | 'requires_approval';

/** Why a run failed or was cancelled: a stable code (`cancelled`, `server_lost`, or a run error's) and a message. */
export interface RunFailure {
  code: string;
  message: string;
}

/** An event of a background run: a streamed run's event, or the `error` that ended it. */
export type BackgroundRunEvent = RunEvent | { type: 'error'; code: string; message: string };

/** A background run's event and its id: 1, 2, 3... in the order the run wrote them. */
export interface RunEventRecord {
  id: number;
  event: BackgroundRunEvent;
}

/** A background run as clients see it. */
export interface BackgroundRun {
  run_id: string;
  agent_id: string;
  session_id: string;
  status: RunStatus;
  /** ISO 8601 times; `started_at` once it took its session, `finished_at` once it finished. */
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  /** Once `completed` or `requires_approval`: the same result a plain run returns. */
  result: RunResult | null;
  /** Once `failed` or `cancelled`: why. */
  error: RunFailure | null;
  /** The id of the run's last event so far (0 before the first). */
  last_event_id: number;
}

/** One page of an agent's background runs, newest first. */
export interface RunList {
  runs: BackgroundRun[];
  /** Pass as `cursor` for the next (older) page; `null` at the end. */
  next_cursor: string | null;
}
