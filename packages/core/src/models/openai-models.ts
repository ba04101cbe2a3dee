import type { ModelProvider } from '../ports/model-provider.js';
import { modelRegistry } from './model-registry.js';
import { openAIProvider, type ProviderSettings } from './providers.js';

/** Options of {@link openAIModels}. */
export interface OpenAIModelsOptions extends ProviderSettings {
  /**
   * Which OpenAI API to call: `responses` (OpenAI's current API) or `chat` (Chat Completions, which
   * most OpenAI-compatible servers implement). Default: `responses` without `baseURL`, `chat` with one.
   */
  api?: 'responses' | 'chat';
}

/**
 * OpenAI (or a server that speaks its API) as a model provider on its own: models named
 * `openai/<id>`, or by their bare id. The same as `modelRegistry([openAIProvider(options)])`; use
 * `modelRegistry` to serve several providers.
 */
export function openAIModels(options: OpenAIModelsOptions = {}): ModelProvider {
  return modelRegistry([openAIProvider({ ...options, api: options.api ?? (options.baseURL ? 'chat' : 'responses') })]);
}
