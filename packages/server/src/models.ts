import {
  anthropicProvider,
  combineModels,
  compatibleProvider,
  echoModels,
  googleProvider,
  type ModelProvider,
  modelRegistry,
  type NamedProvider,
  openAIProvider,
} from '@agenthost/core';
import type { ProvidersConfig } from './providers-config.js';

/**
 * The models the configuration offers: `echo` always, then every configured provider's models by
 * `provider/model` name. OpenAI with only a base URL is a compatible server: Chat Completions, no key.
 */
export function modelsFor(providers: ProvidersConfig): ModelProvider {
  const named: NamedProvider[] = [];
  if (providers.openai) {
    const { apiKey, baseURL, models, api, input } = providers.openai;
    named.push(
      openAIProvider({
        apiKey: apiKey ?? 'not-needed',
        ...(baseURL && { baseURL }),
        ...(models && { models }),
        ...(input && { input }),
        api: api ?? (baseURL && !apiKey ? 'chat' : 'responses'),
      }),
    );
  }
  if (providers.anthropic) named.push(anthropicProvider(providers.anthropic));
  if (providers.google) named.push(googleProvider(providers.google));
  for (const [name, settings] of Object.entries(providers.compatible)) named.push(compatibleProvider(name, settings));
  return named.length ? combineModels(echoModels(), modelRegistry(named)) : echoModels();
}
