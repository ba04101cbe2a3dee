import type { ModelInfo as CatalogModel, ModelPrice } from '@pydantic/genai-prices';
import { lazyPackage } from '../lazy-package.js';

/** The catalog's package (several megabytes of prices), loaded when a provider or a run first asks it. */
const prices = lazyPackage<typeof import('@pydantic/genai-prices')>('@pydantic/genai-prices', {
  url: import.meta.url,
  resolve: import.meta.resolve,
});

/** What the catalog says of one model: its id there, context window and list prices now. */
export interface CatalogEntry {
  id: string;
  context_window?: number;
  price?: { input_per_mtok: number; output_per_mtok: number };
}

/** Models a chat run cannot use: embeddings, speech, transcription, images, realtime and the like. */
const NOT_CHAT =
  /embed|tts|transcri|realtime|audio|image|search|computer-use|moderation|dall-e|whisper|sora|davinci|-instruct$|-live|live-|^(ada|babbage|curie)\b/;
/** Prices of fine-tuning and of families (`ft:gpt-4o`, `gpt-4-`) rather than models one can name. */
const NOT_A_MODEL = /:|-$/;
/**
 * Per catalog provider, what its API serves today. The catalog prices past models too (for old
 * invoices); these are the families the provider has retired or never served through the API these
 * packages call (Vertex-only, open-weight).
 */
const NOT_SERVED: Record<string, RegExp> = {
  openai: /^(gpt-3\.5|gpt-4(-|$)|gpt-4-32k|gpt-4\.5|o1-(preview|mini)|chatgpt-|gpt-oss|codex-mini|.*-vision)/,
  anthropic: /^claude-(v1|2|instant|3-(opus|sonnet|haiku)|3-5-(sonnet|haiku)$)/,
  google: /^(?!gemini|gemma)|^gemini-(pro|1\.|flash-1\.|pro-1\.)|-maas$/,
};

const base = (price: ModelPrice[string]): number | undefined => (typeof price === 'number' ? price : price?.base);

function entry(model: CatalogModel, prices: ModelPrice | undefined): CatalogEntry {
  const input = prices && base(prices.input_mtok);
  const output = prices && base(prices.output_mtok);
  return {
    id: model.id,
    ...(model.context_window !== undefined && { context_window: model.context_window }),
    ...(input !== undefined && output !== undefined && { price: { input_per_mtok: input, output_per_mtok: output } }),
  };
}

/** The catalog's provider id for a name, only when it is that exact id (the catalog matches names loosely). */
export function catalogProvider(name: string): string | undefined {
  return prices().findProvider({ providerId: name })?.id === name ? name : undefined;
}

const listed = new Map<string, readonly string[]>();

/**
 * The ids of the chat models the catalog lists for a provider (`openai`, `anthropic`, `google`,
 * `groq`, `openrouter`, `mistral`...) that its API serves today; empty for a provider it does not know.
 * The catalog is `@pydantic/genai-prices`, bundled: no network.
 */
export function catalogModels(providerId: string): readonly string[] {
  let ids = listed.get(providerId);
  if (!ids) {
    const retired = NOT_SERVED[providerId];
    const usable = (m: CatalogModel) =>
      !m.deprecated &&
      m.context_window !== undefined &&
      !NOT_CHAT.test(m.id) &&
      !NOT_A_MODEL.test(m.id) &&
      !retired?.test(m.id);
    ids = Object.freeze(
      (catalogProvider(providerId) ? (prices().findProvider({ providerId })?.models ?? []) : [])
        .filter(usable)
        .map((m) => m.id),
    );
    listed.set(providerId, ids);
  }
  return ids;
}

/**
 * The catalog's entry for a model id of a provider at a time (default: now), or `undefined`. Ids are
 * matched the catalog's way, so dated and aliased ids (`claude-sonnet-4-5-20250929`) find their model;
 * prices are those in force at that time (some change by date, or by time of day).
 */
export function catalogEntry(providerId: string, modelId: string, at: Date = new Date()): CatalogEntry | undefined {
  const found = prices().calcPrice({ input_tokens: 0, output_tokens: 0 }, modelId, { providerId, timestamp: at });
  return found ? entry(found.model, found.model_price) : undefined;
}

/** Entries are looked up again each minute: prices change by date or time of day, on whole minutes. */
const MINUTE_MS = 60_000;
/** At most this many looked-up entries are kept (ids of an endpoint that takes any id come from clients). */
const MAX_KEPT_ENTRIES = 1_000;
const kept = new Map<string, { entry: Readonly<CatalogEntry> | undefined; until: number }>();

/**
 * {@link catalogEntry} now, looked up at most once per model and clock minute (a price that changes at
 * a minute's start is in force from it): a lookup scans the provider's models (about 20 µs), and every
 * run asks for its model's context window and prices. The entry is frozen: every caller gets the same one.
 */
export function currentCatalogEntry(providerId: string, modelId: string): Readonly<CatalogEntry> | undefined {
  const key = `${providerId}\n${modelId}`;
  const now = Date.now();
  const hit = kept.get(key);
  // Within the minute it was looked up in (a clock set back looks it up again).
  if (hit && now < hit.until && now >= hit.until - MINUTE_MS) return hit.entry;
  if (kept.size >= MAX_KEPT_ENTRIES) kept.clear();
  const found = catalogEntry(providerId, modelId, new Date(now));
  const entry = found && Object.freeze({ ...found, ...(found.price && { price: Object.freeze(found.price) }) });
  kept.set(key, { entry, until: (Math.floor(now / MINUTE_MS) + 1) * MINUTE_MS });
  return entry;
}
