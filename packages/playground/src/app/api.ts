/** The API the playground talks to: the server that serves it, under `/api/v1`. */
export const API_BASE = '/api/v1';

/** An agent's configuration as the API returns it (every field present). */
export interface AgentConfig {
  name: string;
  instruction: string;
  model: string;
  tool: string | null;
  tools: string[];
  require_approval: string[];
  component: string;
  temperature: number | null;
  top_p: number | null;
  max_output_tokens: number | null;
  fallback_models: string[];
  metadata: Record<string, string>;
}

/** An agent as `GET /agents` lists it. */
export interface Agent {
  agent_id: string;
  name: string;
  config: AgentConfig;
  metadata: Record<string, string>;
  version: number;
  created_at: string;
  updated_at: string;
}

/** One version of an agent, as `GET /agents/{id}/versions` lists it. */
export interface AgentVersion {
  agent_id: string;
  version: number;
  config: AgentConfig;
  created_at: string;
}

/** A model or a tool the server offers. */
export interface Offered {
  name: string;
  description?: string;
  /** What a model reads besides text (`image`, `file`); absent means text only. */
  input?: string[];
}

/** A session as `GET /agents/{id}/sessions` lists it. */
export interface SessionInfo {
  session_id: string;
  updated_at: string;
  message_count: number;
}

/** One typed part of a stored message (the sessions API's `parts`). */
export type StoredPart =
  | { type: 'text'; text: string }
  | { type: 'image'; media_type: string; url?: string; data?: string }
  | { type: 'file'; media_type: string; filename?: string; url?: string; data?: string }
  | { type: 'tool-call'; tool_call_id: string; tool_name: string; input: unknown }
  | { type: 'tool-result'; tool_call_id: string; tool_name: string; output: unknown; is_error?: boolean }
  | { type: 'tool-approval-request'; approval_id: string; tool_call_id: string }
  | { type: 'tool-approval-response'; approval_id: string; approved: boolean; reason?: string };

/** One stored message of a session; `parts` is all of it in order (older servers send `content` only). */
export interface StoredMessage {
  role: 'user' | 'assistant';
  content: string;
  parts?: StoredPart[];
}

/** A tool call of a session's last turn that waits for approval. */
export interface PendingApproval {
  approval_id: string;
  tool_call_id: string;
  tool_name: string;
  input: unknown;
}

/** What the chat route puts in each assistant message's metadata. */
export interface TurnMetadata {
  session_id: string;
  model?: string;
  tokens?: { prompt: number; completion: number; total: number };
  cost?: number | null;
}

/** An answer that was not a success: the message is the envelope's `error`. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** The envelope's `error` in an answer's text, else the text itself (or a generic line when empty). */
export function errorMessage(text: string, status?: number): string {
  try {
    const body = JSON.parse(text) as { error?: unknown };
    if (typeof body.error === 'string') return body.error;
  } catch {
    // Not JSON: a proxy's page or a network error; shown as it is.
  }
  return text.trim() || `Request failed${status ? ` (${status})` : ''}`;
}

/** Calls the API with the key; resolves with the envelope's `data`, rejects with an {@link ApiError}. */
export async function api<T>(key: string, path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const response = await fetch(`${API_BASE}${path}`, {
    method: init.method ?? 'GET',
    headers: {
      'x-api-key': key,
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: init.body === undefined ? null : JSON.stringify(init.body),
  });
  const text = await response.text();
  if (!response.ok) throw new ApiError(errorMessage(text, response.status), response.status);
  return (JSON.parse(text) as { data: T }).data;
}

/** The path of an agent's resources. */
export const agentPath = (agentId: string) => `/agents/${encodeURIComponent(agentId)}`;

/** The agent list's path, filtered by one metadata pair when a key is given (`?metadata[team]=support`). */
export function agentsPath(filter: { key: string; value: string } | undefined): string {
  const key = filter?.key.trim();
  if (!filter || !key) return '/agents';
  return `/agents?${encodeURIComponent(`metadata[${key}]`)}=${encodeURIComponent(filter.value)}`;
}
