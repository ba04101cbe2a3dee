import {
  type AgentService,
  type HistoryMessage,
  InvalidInputError,
  parseInput,
  type RunAgentInput,
  SESSION_ID_PATTERN,
} from '@agenthost/core';
import { z } from 'zod';
import { requestComponents } from './http-bodies.js';

/**
 * `POST /agents/{agentId}/chat` bodies. Two shapes, told apart by their messages: the AI SDK's
 * (`useChat` / `DefaultChatTransport`), whose messages have `parts`, answered with its UI message
 * stream; and the `truffle-ai` SDK's `chat()`, whose messages have `content`, answered with JSON.
 */

const sessionId = z
  .string({ error: 'session_id must be a string' })
  .regex(SESSION_ID_PATTERN, 'session_id must be 1 to 128 characters of letters, digits, ".", "_", ":" or "-"')
  .nullish()
  .describe('The session to continue; a new session when absent');

const role = z.enum(['user', 'assistant', 'system'], { error: 'role must be "user", "assistant" or "system"' });

/** The AI SDK's chat request: the UI messages, of which the server reads the last user message's text. */
export const uiChatBodySchema = z
  .looseObject({
    id: z.string({ error: 'id must be a string' }).optional().describe("The client's chat id (not a session id)"),
    messages: z
      .array(
        z.looseObject({
          id: z.string({ error: 'id must be a string' }).optional(),
          role,
          parts: z.array(z.looseObject({ type: z.string({ error: 'type must be a string' }) }), {
            error: 'parts must be an array',
          }),
        }),
        { error: 'messages must be an array' },
      )
      .min(1, 'messages must not be empty'),
    trigger: z.string({ error: 'trigger must be a string' }).optional(),
    messageId: z.string({ error: 'messageId must be a string' }).optional(),
    session_id: sessionId,
  })
  .describe('The AI SDK (`DefaultChatTransport`) shape; answered with the UI message stream');

/** The `truffle-ai` SDK's chat request: the whole conversation, as role and text. */
export const truffleChatBodySchema = z
  .looseObject({
    messages: z
      .array(z.object({ role, content: z.string({ error: 'content must be a string' }) }), {
        error: 'messages must be an array',
      })
      .min(1, 'messages must not be empty'),
    session_id: sessionId,
  })
  .describe('The `truffle-ai` SDK shape; answered with JSON');

/** `POST /agents/{agentId}/chat`: either shape. */
export const chatBodySchema = z.union([uiChatBodySchema, truffleChatBodySchema]);

requestComponents.add(chatBodySchema, { id: 'ChatInput' });

/** A chat request as the service takes it: the run's input and, for a new session, the client's history. */
export interface ChatRequest {
  input: RunAgentInput;
  history?: HistoryMessage[];
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** Whether a chat body is the AI SDK's: one of its messages has `parts`. */
export function isUiChat(body: unknown): boolean {
  return (
    isObject(body) && Array.isArray(body.messages) && body.messages.some((m) => isObject(m) && Array.isArray(m.parts))
  );
}

const noUserMessage = () =>
  new InvalidInputError({
    details: { messages: { message: 'messages must contain a user message with text', path: ['messages'] } },
  });

function uiChat(body: unknown, sessionHeader: string | undefined): ChatRequest {
  const chat = parseInput(uiChatBodySchema, body);
  const last = chat.messages.findLast((message) => message.role === 'user');
  const text = (last?.parts ?? [])
    .filter((part) => part.type === 'text' && typeof part.text === 'string')
    .map((part) => part.text as string)
    .join('');
  if (text.trim() === '') throw noUserMessage();
  const session = chat.session_id ?? sessionHeader;
  return { input: { input: text, ...(session !== undefined && { session_id: session }) } };
}

function truffleChat(body: unknown): ChatRequest {
  const chat = parseInput(truffleChatBodySchema, body);
  const at = chat.messages.findLastIndex((message) => message.role === 'user');
  if (at < 0) throw noUserMessage();
  const input = { input: chat.messages[at]!.content, ...(chat.session_id != null && { session_id: chat.session_id }) };
  if (chat.session_id != null) return { input };
  // The SDK resends the whole conversation: without a session, the earlier messages are its history.
  const history = chat.messages.slice(0, at).filter((message): message is HistoryMessage => message.role !== 'system');
  return { input, history };
}

/**
 * A chat body as the service takes it (see {@link chatBodySchema}); `sessionHeader` (`x-session-id`)
 * names the session when the AI SDK's body does not. The agent is looked up before a bad body is
 * reported, so an unknown agent is a 404 whatever the body, as for a run.
 */
export async function chatRequest(
  service: AgentService,
  accountId: string,
  agentId: string,
  body: unknown,
  sessionHeader: string | undefined,
): Promise<ChatRequest> {
  try {
    return isUiChat(body) ? uiChat(body, sessionHeader) : truffleChat(body);
  } catch (error) {
    await service.getAgent(accountId, agentId);
    throw error;
  }
}
