import type { ChatModel, ModelProvider } from '../ports/model-provider.js';
import { ECHO_CONTEXT_WINDOW, ECHO_MODEL_NAME, EchoLanguageModel } from './echo-model.js';

/**
 * A model provider over a fixed map of names to AI SDK models.
 * @example staticModels({ 'claude-sonnet': anthropic('claude-sonnet-4-5') })
 */
export function staticModels(models: Record<string, ChatModel>): ModelProvider {
  const map = new Map(Object.entries(models));
  const names = Object.freeze([...map.keys()]);
  return { listModels: () => names, languageModel: (name) => map.get(name) };
}

/** The offline `echo` development model as a provider: provider `agenthost`, free. */
export function echoModels(): ModelProvider {
  const model = new EchoLanguageModel();
  const info = Object.freeze({
    name: ECHO_MODEL_NAME,
    provider: 'agenthost',
    context_window: ECHO_CONTEXT_WINDOW,
    price: Object.freeze({ input_per_mtok: 0, output_per_mtok: 0 }),
  });
  return {
    listModels: () => [ECHO_MODEL_NAME],
    languageModel: (name) => (name === ECHO_MODEL_NAME ? model : undefined),
    modelInfo: (name) => (name === ECHO_MODEL_NAME ? info : undefined),
  };
}

/**
 * Joins providers: names are listed in order without repeats, and the first provider that serves a
 * name serves it, and says what is known of it.
 */
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
    modelInfo: (name) => providers.find((p) => p.languageModel(name) !== undefined)?.modelInfo?.(name),
    openProviders: () => [...new Set(providers.flatMap((p) => p.openProviders?.() ?? []))],
  };
}
