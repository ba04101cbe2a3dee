import type { LanguageModelV2, LanguageModelV3 } from '@ai-sdk/provider';

/** An AI SDK language model object (specification v3, or v2 from an older provider package). */
export type ChatModel = LanguageModelV3 | LanguageModelV2;

/**
 * The model port: turns a model name, as stored in an agent's config, into an AI SDK language model.
 * Any AI SDK provider plugs in here; `combineModels` joins several.
 *
 * A provider must guarantee that `languageModel(name)` returns a model for every name that
 * `listModels()` lists, and `undefined` for any other name (it must not throw for an unknown name).
 */
export interface ModelProvider {
  /** The names this provider serves, in the order to show them. */
  listModels(): readonly string[];
  /** The model for `name`, or `undefined` when the name is not supported. */
  languageModel(name: string): ChatModel | undefined;
}
