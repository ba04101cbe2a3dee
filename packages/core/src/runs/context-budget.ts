import type { ModelMessage, ToolSet } from 'ai';
import { z } from 'zod';
import { DEFAULT_CONTEXT_WINDOW, estimateTokens, fitHistory, partsTokens } from '../context-window.js';
import type { AgentStore, SessionRef } from '../ports/agent-store.js';
import type { ModelInfo } from '../ports/model-provider.js';
import type { AgentConfig, MessagePart } from '../records.js';
import { runHistorySchema } from '../schemas.js';
import type { ServiceSettings } from '../service-options.js';
import { invalidField, parseInput } from '../validation.js';
import { boundedAttachments, historyMessages } from './message-parts.js';

/** Tokens set aside for the definitions of an agent's tools, per tool. */
const TOKENS_PER_TOOL = 500;

/** What a run's context budget is made of. */
export interface BudgetRequest {
  /** The configuration the run uses (the agent's current one, or the version the run names). */
  config: Pick<AgentConfig, 'model' | 'instruction' | 'max_output_tokens'>;
  info: ModelInfo;
  input: string;
  /** The input's parts, when it has images or files (their tokens are estimated apart from the text). */
  parts?: readonly MessagePart[] | undefined;
  tools: ToolSet | undefined;
}

/**
 * How many tokens of history a run may send: the model's context window (configured, else its
 * provider's, else the default) less the answer's tokens (the agent's `max_output_tokens`, else the
 * server's bound), the instruction, the input (its images and files by {@link partsTokens}) and the tools.
 * @throws InvalidInputError when those alone do not fit the window.
 */
export function historyBudget(
  settings: Pick<ServiceSettings, 'contextWindows' | 'maxOutputTokens'>,
  { config, info, input, parts, tools }: BudgetRequest,
): number {
  const model = config.model;
  const window = settings.contextWindows[model] ?? info.context_window ?? DEFAULT_CONTEXT_WINDOW;
  const answer = config.max_output_tokens ?? settings.maxOutputTokens;
  const reserved =
    answer +
    estimateTokens(config.instruction) +
    estimateTokens(input) +
    partsTokens(parts) +
    Object.keys(tools ?? {}).length * TOKENS_PER_TOOL;
  if (reserved > window) {
    throw invalidField(
      'input',
      `input is too long for the context window of ${model} (${window} tokens, ${answer} kept for the answer)`,
    );
  }
  return window - reserved;
}

/** The history a run sends, and how many earlier messages of the session it leaves out. */
export interface RunHistory {
  messages: ModelMessage[];
  omitted: number;
}

/**
 * The newest whole turns of a session that fit `budget` tokens, out of its newest `limit` messages
 * (`limit` is even, so the oldest read is a user message), as AI SDK messages: a turn's tool calls
 * and results go with it (its size estimated from its parts).
 */
export async function readHistory(
  store: AgentStore,
  session: SessionRef,
  limit: number,
  budget: number,
): Promise<RunHistory> {
  const history = await store.readMessages(session, { last: limit });
  // Only a full window can have left older messages unread; then the session says how many there are.
  const total =
    history.length === limit ? ((await store.getSession(session))?.message_count ?? history.length) : history.length;
  const { sent } = fitHistory(boundedAttachments(history), budget);
  return { messages: historyMessages(sent), omitted: total - sent.length };
}

/**
 * The newest whole turns of a history the caller sent (`RunOptions.history`) that fit `budget`
 * tokens, out of its newest `limit` messages: cut exactly as a stored session's history is.
 * @throws InvalidInputError naming `history` when it is not a list of user and assistant messages.
 */
export function givenHistory(history: unknown, limit: number, budget: number): RunHistory {
  const { history: messages } = parseInput(z.object({ history: runHistorySchema }), { history });
  const window = messages.slice(-limit);
  // Like a stored window, the history sent never starts with a reply.
  const start = window[0]?.role === 'assistant' ? 1 : 0;
  const { sent } = fitHistory(boundedAttachments(window.slice(start)), budget);
  return { messages: historyMessages(sent), omitted: messages.length - sent.length };
}
