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
