import type { SessionMessage } from './records.js';

/** The window assumed for a model whose window is not known (from its provider's catalog, or configured). */
export const DEFAULT_CONTEXT_WINDOW = 128_000;

const PER_MESSAGE = 4;
const encoder = new TextEncoder();

/**
 * A deliberately high estimate of a text's tokens: one token per three UTF-8 bytes, plus a per-message
 * overhead. Real tokenizers average about four characters of English per token and one token per
 * CJK character (three bytes), so the estimate errs on the side of sending less.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(encoder.encode(text).length / 3) + PER_MESSAGE;
}

/** What an image or a file is assumed to cost, whatever its size: providers bill them by their own rules. */
export const TOKENS_PER_ATTACHMENT = 1_500;

/**
 * A message's estimated tokens: its text, or, when it has parts, each part's (text, a tool call's
 * input, a tool's output as JSON; an image or a file {@link TOKENS_PER_ATTACHMENT}).
 */
export function messageTokens(message: Pick<SessionMessage, 'content' | 'parts'>): number {
  if (!message.parts) return estimateTokens(message.content);
  let tokens = 0;
  for (const part of message.parts) {
    if (part.type === 'text') tokens += estimateTokens(part.text);
    else if (part.type === 'image' || part.type === 'file') tokens += TOKENS_PER_ATTACHMENT;
    else if (part.type === 'tool-call') tokens += estimateTokens(part.tool_name + JSON.stringify(part.input ?? null));
    else if (part.type === 'tool-result') tokens += estimateTokens(JSON.stringify(part.output ?? null));
  }
  return Math.max(tokens, estimateTokens(''));
}

/** The newest whole turns of `history` whose estimated size fits `budget` tokens, and how many were left out. */
export function fitHistory<T extends Pick<SessionMessage, 'role' | 'content' | 'parts'>>(
  history: readonly T[],
  budget: number,
): { sent: T[]; omitted: number } {
  let used = 0;
  let from = history.length;
  // Walk back a turn (user + reply) at a time, so the history sent never starts with a reply.
  for (let i = history.length; i > 0; ) {
    const start = history[i - 1]?.role === 'assistant' && history[i - 2]?.role === 'user' ? i - 2 : i - 1;
    const cost = history.slice(start, i).reduce((n, m) => n + messageTokens(m), 0);
    if (used + cost > budget) break;
    used += cost;
    from = i = start;
  }
  return { sent: history.slice(from), omitted: from };
}
