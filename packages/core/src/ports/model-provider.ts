import type { LanguageModel } from 'ai';

/**
 * An AI SDK language model object: what `ai` accepts, of the current provider specification (v4) or
 * an older one (v3, v2), which the SDK adapts. Never a bare model id string (the SDK would send it to
 * its hosted gateway).
 */
export type ChatModel = Exclude<LanguageModel, string>;

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
