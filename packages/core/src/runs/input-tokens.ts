import type { MessagePart } from '../records.js';

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
