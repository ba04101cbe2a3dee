import type { MessagePart, SessionMessage } from './records.js';

/** The window assumed for a model whose window is not known (from its provider's catalog, or configured). */
export const DEFAULT_CONTEXT_WINDOW = 128_000;

const PER_MESSAGE = 4;

/**
 * A deliberately high estimate of a text's tokens: one token per three UTF-8 bytes, plus a per-message
 * overhead. Real tokenizers average about four characters of English per token and one token per
 * CJK character (three bytes), so the estimate errs on the side of sending less.
 */
export function estimateTokens(text: string): number {
  // The UTF-8 length without encoding the text (lone surrogates count as U+FFFD's three bytes, as encoding does).
  return Math.ceil(Buffer.byteLength(text, 'utf8') / 3) + PER_MESSAGE;
}

/**
 * A message's estimated tokens: its text, or, when it has parts, each part's (text, a tool call's
 * input, a tool's output as JSON; an image or a file as {@link partsTokens} counts it).
 */
export function messageTokens(message: Pick<SessionMessage, 'content' | 'parts'>): number {
  if (!message.parts) return estimateTokens(message.content);
  let tokens = 0;
  for (const part of message.parts) {
    if (part.type === 'text') tokens += estimateTokens(part.text);
    else if (part.type === 'image' || part.type === 'file') tokens += partsTokens([part]);
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

/**
 * Tokens an image is counted as: about what the providers charge for a large one (OpenAI's high
 * detail tiles of a 1024x1024 image, Anthropic's ~1.15 megapixel ceiling), whatever its size.
 */
export const IMAGE_TOKENS = 1_600;
/**
 * Tokens a PDF, or a file given by URL, is counted as (its size is not known, or says little of its
 * text): about ten pages.
 */
export const FILE_TOKENS = 10_000;

/** One token per three bytes, as `estimateTokens` counts text. */
const textTokens = (base64: string) => Math.ceil(Math.floor((base64.replace(/=+$/, '').length * 3) / 4) / 3);

/**
 * The estimated tokens of the images and files of a message (its text is counted apart): each image
 * {@link IMAGE_TOKENS}; a text file sent as data one token per three bytes; any other file
 * {@link FILE_TOKENS}. A text file too big for the model's window makes the input too long, as its
 * text would.
 */
export function partsTokens(parts: readonly MessagePart[] | undefined): number {
  let tokens = 0;
  for (const part of parts ?? []) {
    if (part.type === 'image') tokens += IMAGE_TOKENS;
    else if (part.type === 'file')
      tokens += part.data !== undefined && part.media_type !== 'application/pdf' ? textTokens(part.data) : FILE_TOKENS;
  }
  return tokens;
}
