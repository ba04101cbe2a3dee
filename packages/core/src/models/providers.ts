import type { ProviderV3, ProviderV4 } from '@ai-sdk/provider';
import { lazyPackage } from '../lazy-package.js';
import { catalogModels, catalogProvider } from './catalog.js';

// Each provider's package is loaded when a provider of it is first made: an application that uses
// one provider, or only models of its own, does not hold the others in its memory.
const here = { url: import.meta.url, resolve: import.meta.resolve };
const openai = lazyPackage<typeof import('@ai-sdk/openai')>('@ai-sdk/openai', here);
const anthropic = lazyPackage<typeof import('@ai-sdk/anthropic')>('@ai-sdk/anthropic', here);
const google = lazyPackage<typeof import('@ai-sdk/google')>('@ai-sdk/google', here);
const openaiCompatible = lazyPackage<typeof import('@ai-sdk/openai-compatible')>('@ai-sdk/openai-compatible', here);

/** How to reach one provider, and which of its models to offer. */
export interface ProviderSettings {
  /** API key; each provider package otherwise reads its usual variable (`OPENAI_API_KEY`...). */
  apiKey?: string;
  /** Base URL of the API (a proxy, a gateway, a test server). */
  baseURL?: string;
  /** The model ids to offer, in place of the catalog's list. */
  models?: readonly string[];
  /** A fetch implementation, for proxies or tests. */
  fetch?: typeof globalThis.fetch;
  /**
   * What the provider's models read in a run's input besides text (`ModelInfo.input`). OpenAI,
   * Anthropic and Google: text, images and files unless set; an OpenAI-compatible endpoint: text only
   * unless set.
   */
  input?: ModelInput;
}

/** What models read in a run's input: `text`, and `image` and `file` when they read them. */
export type ModelInput = readonly ('text' | 'image' | 'file')[];

/** What the models of OpenAI, Anthropic and Google read. */
export const MULTIMODAL_INPUT: ModelInput = Object.freeze(['text', 'image', 'file'] as const);

/**
 * A provider the registry serves under `name`: an AI SDK provider, the model ids it offers (`'any'`
 * for an endpoint whose models are not known in advance), and the catalog provider its context
 * windows and prices come from, if any.
 */
export interface NamedProvider {
  name: string;
  provider: ProviderV4 | ProviderV3;
  models: readonly string[] | 'any';
  catalog?: string;
  /** What its models read besides text; absent means text only. */
  input?: ModelInput;
}

/** A provider's name: 1-32 of lower-case letters, digits, `-` and `_` (so never a `/`). */
export const PROVIDER_NAME = /^[a-z0-9][a-z0-9_-]{0,31}$/;
const pick = ({ apiKey, baseURL, fetch }: ProviderSettings) => ({
  ...(apiKey !== undefined && { apiKey }),
  ...(baseURL !== undefined && { baseURL }),
  ...(fetch !== undefined && { fetch }),
});
const offered = (settings: ProviderSettings, catalog: string): readonly string[] =>
  Object.freeze([...new Set(settings.models ?? catalogModels(catalog))]);

/**
 * What a built-in provider's models read: text, images and files from the provider's own API; text
 * only, unless `input` says more, at another `baseURL` (a self-hosted server in the operator's network
 * would fetch the image URLs clients send).
 */
function builtInInput(settings: ProviderSettings, baseUrlVariable?: string): readonly ('text' | 'image' | 'file')[] {
  // The OpenAI and Anthropic packages also read their base URL from the environment.
  const elsewhere = settings.baseURL || (baseUrlVariable && process.env[baseUrlVariable]);
  return settings.input ?? (elsewhere ? ['text'] : MULTIMODAL_INPUT);
}

/**
 * OpenAI, through `@ai-sdk/openai`: its Responses API by default, or Chat Completions with
 * `api: 'chat'`. Offers the catalog's OpenAI chat models unless `models` says otherwise.
 */
export function openAIProvider(settings: ProviderSettings & { api?: 'responses' | 'chat' } = {}): NamedProvider {
  const made = openai().createOpenAI(pick(settings));
  const provider: ProviderV4 =
    settings.api === 'chat'
      ? { ...made, specificationVersion: 'v4', languageModel: (id: string) => made.chat(id) }
      : made;
  return {
    name: 'openai',
    provider,
    models: offered(settings, 'openai'),
    catalog: 'openai',
    input: builtInInput(settings, 'OPENAI_BASE_URL'),
  };
}

/** Anthropic's Messages API, through `@ai-sdk/anthropic`. Offers the catalog's Claude models unless `models` says otherwise. */
export function anthropicProvider(settings: ProviderSettings = {}): NamedProvider {
  return {
    name: 'anthropic',
    provider: anthropic().createAnthropic(pick(settings)),
    models: offered(settings, 'anthropic'),
    catalog: 'anthropic',
    input: builtInInput(settings, 'ANTHROPIC_BASE_URL'),
  };
}

/** Google's Gemini API, through `@ai-sdk/google`. Offers the catalog's Gemini and Gemma models unless `models` says otherwise. */
export function googleProvider(settings: ProviderSettings = {}): NamedProvider {
  return {
    name: 'google',
    provider: google().createGoogleGenerativeAI(pick(settings)),
    models: offered(settings, 'google'),
    catalog: 'google',
    input: builtInInput(settings),
  };
}

/**
 * Any OpenAI-compatible endpoint (Ollama, vLLM, LM Studio, OpenRouter, Groq, a company gateway),
 * through `@ai-sdk/openai-compatible`, under the name of your choosing. It offers the `models` given,
 * or any model id when none are; its models read text only unless `input` says more. When the name is exactly one the catalog knows (`openrouter`,
 * `groq`, `mistral`, `deepseek`...), context windows and prices come from there.
 * @throws TypeError for a name that is not 1-32 characters of lower-case letters, digits, `-` or `_`, or without `baseURL`.
 */
export function compatibleProvider(name: string, settings: ProviderSettings & { baseURL: string }): NamedProvider {
  if (!PROVIDER_NAME.test(name))
    throw new TypeError(`compatibleProvider: "${name}" is not a provider name (1-32 of a-z, 0-9, "-", "_")`);
  if (!settings?.baseURL) throw new TypeError(`compatibleProvider: "${name}" needs a baseURL`);
  const provider = openaiCompatible().createOpenAICompatible({
    name,
    includeUsage: true,
    ...pick(settings),
    baseURL: settings.baseURL,
  });
  const catalog = catalogProvider(name);
  return {
    name,
    provider: provider as unknown as ProviderV4,
    models: settings.models ? Object.freeze([...new Set(settings.models)]) : 'any',
    ...(catalog && { catalog }),
    ...(settings.input && { input: settings.input }),
  };
}
