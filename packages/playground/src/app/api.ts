/** The API the playground talks to: the server that serves it, under `/api/v1`. */
export const API_BASE = '/api/v1';

/** An agent as `GET /agents` lists it. */
export interface Agent {
  agent_id: string;
  name: string;
  config: { model: string; tool: string | null; instruction: string };
}

/** A model or a tool the server offers. */
export interface Offered {
  name: string;
}

/** A session as `GET /agents/{id}/sessions` lists it. */
export interface SessionInfo {
  session_id: string;
  updated_at: string;
  message_count: number;
}

/** One stored message of a session. */
export interface StoredMessage {
  role: 'user' | 'assistant';
  content: string;
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
