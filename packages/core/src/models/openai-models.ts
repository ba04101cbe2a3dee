import { createOpenAI } from '@ai-sdk/openai';
import type { ModelProvider } from '../ports/model-provider.js';

/**
 * Current OpenAI chat models offered by default. Any other name can be offered through
 * `OpenAIModelsOptions.models` (for example the names an Ollama or vLLM server serves).
 */
export const DEFAULT_OPENAI_MODELS: readonly string[] = Object.freeze([
  'gpt-5.5',
  'gpt-5.4',
  'gpt-5.4-mini',
  'gpt-5.4-nano',
  'gpt-5',
  'gpt-5-mini',
  'gpt-5-nano',
  'gpt-4.1',
  'gpt-4.1-mini',
  'gpt-4.1-nano',
  'gpt-4o',
  'gpt-4o-mini',
  'o4-mini',
  'o3',
]);

/** Options of {@link openAIModels}. */
export interface OpenAIModelsOptions {
  /** API key; the provider falls back to the `OPENAI_API_KEY` environment variable. */
  apiKey?: string;
  /** Base URL of the API, for any OpenAI-compatible server (default `https://api.openai.com/v1`). */
  baseURL?: string;
  /**
   * Which OpenAI API to call: `responses` (OpenAI's current API) or `chat` (Chat Completions, which
   * most OpenAI-compatible servers implement). Default: `responses` without `baseURL`, `chat` with one.
   */
  api?: 'responses' | 'chat';
  /** The model names to offer (default {@link DEFAULT_OPENAI_MODELS}). */
  models?: readonly string[];
  /** A fetch implementation, for proxies or tests. */
  fetch?: typeof globalThis.fetch;
}

/** OpenAI, or any OpenAI-compatible server, through `@ai-sdk/openai`. */
export function openAIModels(options: OpenAIModelsOptions = {}): ModelProvider {
  const provider = createOpenAI({
    ...(options.apiKey !== undefined && { apiKey: options.apiKey }),
    ...(options.baseURL !== undefined && { baseURL: options.baseURL }),
    ...(options.fetch !== undefined && { fetch: options.fetch }),
  });
  const api = options.api ?? (options.baseURL ? 'chat' : 'responses');
  const names = Object.freeze([...new Set(options.models ?? DEFAULT_OPENAI_MODELS)]);
  const offered = new Set(names);
  return {
    listModels: () => names,
    languageModel: (name) => {
      if (!offered.has(name)) return undefined;
      return api === 'chat' ? provider.chat(name) : provider.responses(name);
    },
  };
}
