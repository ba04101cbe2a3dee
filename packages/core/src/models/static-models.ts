import type { ChatModel, ModelProvider } from '../ports/model-provider.js';
import { ECHO_MODEL_NAME, EchoLanguageModel } from './echo-model.js';

/**
 * A model provider over a fixed map of names to AI SDK models.
 * @example staticModels({ 'claude-sonnet': anthropic('claude-sonnet-4-5') })
 */
export function staticModels(models: Record<string, ChatModel>): ModelProvider {
  const map = new Map(Object.entries(models));
  const names = Object.freeze([...map.keys()]);
  return { listModels: () => names, languageModel: (name) => map.get(name) };
}

/** The offline `echo` development model as a provider. */
export function echoModels(): ModelProvider {
  return staticModels({ [ECHO_MODEL_NAME]: new EchoLanguageModel() });
}

/** Joins providers: names are listed in order without repeats, and the first provider that has a name serves it. */
export function combineModels(...providers: ModelProvider[]): ModelProvider {
  return {
    listModels: () => [...new Set(providers.flatMap((p) => p.listModels()))],
    languageModel: (name) => {
      for (const p of providers) {
        const model = p.languageModel(name);
        if (model) return model;
      }
      return undefined;
    },
  };
}
