import { calcPrice, findProvider, type ModelInfo as CatalogModel, type ModelPrice } from '@pydantic/genai-prices';

/** What the catalog says of one model: its id there, context window and base list prices. */
export interface CatalogEntry {
  id: string;
  context_window?: number;
  price?: { input_per_mtok: number; output_per_mtok: number };
}

/** Models a chat run cannot use: embeddings, speech, transcription, images, realtime and the like. */
const NOT_CHAT = /embed|tts|transcri|realtime|audio|image|search|computer-use|moderation|dall-e|whisper|sora|davinci|-instruct$|^(ada|babbage|curie)\b/;
/** Prices of fine-tuning and of families (`ft:gpt-4o`, `gpt-4-`) rather than models one can name. */
const NOT_A_MODEL = /:|-$/;
/** Per catalog provider, which of its ids a provider package serves (the catalog's Google lists Vertex's Claude too). */
const SERVED: Record<string, RegExp> = { google: /^(gemini|gemma)/ };

const base = (price: ModelPrice[string]): number | undefined => (typeof price === 'number' ? price : price?.base);

function entry(model: CatalogModel): CatalogEntry {
  // Conditional prices (by date or time of day) list the current ones last.
  const prices = Array.isArray(model.prices) ? model.prices.at(-1)?.prices : model.prices;
  const input = prices && base(prices.input_mtok);
  const output = prices && base(prices.output_mtok);
  return {
    id: model.id,
    ...(model.context_window !== undefined && { context_window: model.context_window }),
    ...(input !== undefined && output !== undefined && { price: { input_per_mtok: input, output_per_mtok: output } }),
  };
}

const listed = new Map<string, readonly CatalogEntry[]>();

/**
 * The chat models the catalog lists for a provider (`openai`, `anthropic`, `google`, `groq`,
 * `openrouter`, `mistral`...), current ones only, with context windows and list prices; empty for a
 * provider it does not know. The catalog is `@pydantic/genai-prices`, bundled: no network.
 */
export function catalogModels(providerId: string): readonly CatalogEntry[] {
  let models = listed.get(providerId);
  if (!models) {
    const served = SERVED[providerId];
    const all = findProvider({ providerId })?.models ?? [];
    const usable = (m: CatalogModel) => !m.deprecated && !NOT_CHAT.test(m.id) && !NOT_A_MODEL.test(m.id) && (!served || served.test(m.id));
    models = Object.freeze(all.filter(usable).map(entry));
    listed.set(providerId, models);
  }
  return models;
}

/**
 * The catalog's entry for a model id of a provider, or `undefined`. Ids are matched the catalog's
 * way, so dated and aliased ids (`claude-sonnet-4-5-20250929`) find their model.
 */
export function catalogEntry(providerId: string, modelId: string): CatalogEntry | undefined {
  const found = calcPrice({ input_tokens: 0, output_tokens: 0 }, modelId, { providerId });
  return found ? entry(found.model) : undefined;
}
