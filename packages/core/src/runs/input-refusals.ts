import { UnsupportedFunctionalityError } from '@ai-sdk/provider';
import type { generateText } from 'ai';
import { InvalidInputError } from '../errors/invalid-input-error.js';

type DownloadFunction = NonNullable<Parameters<typeof generateText>[0]['experimental_download']>;

/**
 * The AI SDK's download hook of a run's model calls: the server never fetches a URL itself (no
 * request to an address a client chose, inside the server's network). A URL the model's provider
 * takes as it is (`supportedUrls`: OpenAI's images, Anthropic's images and PDFs...) is passed on;
 * any other URL (a model that needs the bytes, a file a tool or the model returned by URL) fails the
 * call with a 400 that asks for the bytes as `data`.
 */
export function refuseDownloads(run: { modelName: string }): DownloadFunction {
  return async (requests) =>
    requests.map(({ url, isUrlSupportedByModel }) => {
      if (isUrlSupportedByModel) return null;
      const message = `The model "${run.modelName}" cannot read ${url.protocol}//${url.host}/… by URL, and the server does not fetch URLs; send the bytes as base64 data instead`;
      throw new InvalidInputError({ message, details: { input: { message, path: ['input'] } } });
    });
}

/**
 * What a model call's failure is when the model's provider package refused a part of the input it
 * cannot send (OpenAI's Chat Completions and a text file, say): a 400 naming `input` and the model,
 * not a provider failure (nothing was sent, and another model is not tried). `undefined` otherwise.
 */
export function unsupportedInput(error: unknown, run: { modelName: string }): InvalidInputError | undefined {
  let e = error;
  for (let depth = 0; e !== null && typeof e === 'object' && depth < 8; depth++) {
    if (UnsupportedFunctionalityError.isInstance(e)) {
      const message = `The model "${run.modelName}" cannot take this input: ${e.functionality} is not supported by its provider`;
      return new InvalidInputError({ message, details: { input: { message, path: ['input'] } }, cause: error });
    }
    e = (e as { cause?: unknown; lastError?: unknown }).lastError ?? (e as { cause?: unknown }).cause;
  }
  return undefined;
}
