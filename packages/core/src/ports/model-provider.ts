import type { LanguageModel } from 'ai';

/**
 * An AI SDK language model object: what `ai` accepts, of the current provider specification (v4) or
 * an older one (v3, v2), which the SDK adapts. Never a bare model id string (the SDK would send it to
 * its hosted gateway).
 */
export type ChatModel = Exclude<LanguageModel, string>;

/** What is known of an offered model: for discovery (`GET /models`), the context budget and cost. */
export interface ModelInfo {
  /** The name to use for it: `provider/model` (`openai/gpt-5-mini`), or a bare name (`echo`). */
  name: string;
  /** The provider's name (`openai`, `anthropic`, `ollama`...). */
  provider: string;
  /** The model's context window, in tokens, when known. */
  context_window?: number;
  /** Its list price in US dollars per million tokens, when known. */
  price?: { input_per_mtok: number; output_per_mtok: number };
  /**
   * What the model accepts in a run's input: `text`, and `image` and `file` when it reads them.
   * Absent means text only.
   */
  input?: readonly ('text' | 'image' | 'file')[];
}

/**
 * The model port: turns a model name, as stored in an agent's config, into an AI SDK language model.
 * Any AI SDK provider plugs in here; `combineModels` joins several, `modelRegistry` serves providers
 * by `provider/model` names.
 *
 * A provider must guarantee that `languageModel(name)` returns a model for every name that
 * `listModels()` lists, and `undefined` for a name it does not serve (it must not throw for one). It
 * may serve names it does not list (a bare alias of a listed name, or any name of an endpoint whose
 * models are not known in advance).
 */
export interface ModelProvider {
  /** The names this provider serves, in the order to show them. */
  listModels(): readonly string[];
  /** The model for `name`, or `undefined` when the name is not supported. */
  languageModel(name: string): ChatModel | undefined;
  /** What is known of the model `name` serves, or `undefined`. Optional. */
  modelInfo?(name: string): ModelInfo | undefined;
  /**
   * The providers that serve any model id under their name (`ollama/<anything>`), as an endpoint
   * whose models are not known in advance does; their models are not listed. Optional.
   */
  openProviders?(): readonly string[];
}
