import { createProviderRegistry } from 'ai';
import type { ChatModel, ModelInfo, ModelProvider } from '../ports/model-provider.js';
import { currentCatalogEntry } from './catalog.js';
import { type NamedProvider, PROVIDER_NAME } from './providers.js';

const SEPARATOR = '/';

function check(providers: readonly NamedProvider[]): void {
  const names = new Set<string>();
  for (const { name, models } of providers) {
    if (!PROVIDER_NAME.test(name) || name === 'agenthost')
      throw new TypeError(
        `modelRegistry: "${name}" is not a provider name (1-32 of a-z, 0-9, "-", "_"; not "agenthost")`,
      );
    if (names.has(name)) throw new TypeError(`modelRegistry: two providers are named "${name}"`);
    if (models !== 'any' && models.some((id) => typeof id !== 'string' || id.length === 0))
      throw new TypeError(`modelRegistry: "${name}" lists an empty model id`);
    names.add(name);
  }
}

/**
 * Serves models of several providers by `provider/model` name (`openai/gpt-5-mini`,
 * `anthropic/claude-sonnet-4-5`, `ollama/llama3.2`, `openrouter/openai/gpt-5-mini`), through the AI
 * SDK's own provider registry: the name goes to it whole, once the provider is known to offer the
 * model. A bare name (`gpt-5-mini`, as agents made before provider names and Truffle clients use)
 * means the first provider, in the order given, that lists it; a name with a `/` is never guessed at.
 * Context windows and prices come from the catalog of each provider that has one.
 *
 * @example
 * modelRegistry([openAIProvider(), anthropicProvider(), compatibleProvider('ollama', { baseURL: 'http://127.0.0.1:11434/v1' })])
 * @throws TypeError for a provider name that is not one, two providers of one name, or an empty model id.
 */
export function modelRegistry(providers: readonly NamedProvider[]): ModelProvider {
  check(providers);
  const byName = new Map(providers.map((p) => [p.name, p]));
  const registry = createProviderRegistry(Object.fromEntries(providers.map((p) => [p.name, p.provider])), {
    separator: SEPARATOR,
  });
  const offers = (p: NamedProvider, id: string) => id.length > 0 && (p.models === 'any' || p.models.includes(id));
  const names = Object.freeze(
    providers.flatMap((p) => (p.models === 'any' ? [] : p.models.map((id) => `${p.name}${SEPARATOR}${id}`))),
  );
  const open = Object.freeze(providers.filter((p) => p.models === 'any').map((p) => p.name));

  /** The provider and model id a name means, if a provider offers it. */
  function resolve(name: string): { provider: NamedProvider; id: string } | undefined {
    const at = name.indexOf(SEPARATOR);
    if (at < 0) {
      const provider = providers.find((p) => p.models !== 'any' && p.models.includes(name));
      return provider && { provider, id: name };
    }
    const provider = byName.get(name.slice(0, at));
    const id = name.slice(at + 1);
    return provider && offers(provider, id) ? { provider, id } : undefined;
  }

  return {
    listModels: () => names,
    openProviders: () => open,
    languageModel(name): ChatModel | undefined {
      const found = resolve(name);
      return found && (registry.languageModel(`${found.provider.name}${SEPARATOR}${found.id}` as never) as ChatModel);
    },
    modelInfo(name): ModelInfo | undefined {
      const found = resolve(name);
      if (!found) return undefined;
      const full = `${found.provider.name}${SEPARATOR}${found.id}`;
      const entry = found.provider.catalog ? currentCatalogEntry(found.provider.catalog, found.id) : undefined;
      return {
        name: full,
        provider: found.provider.name,
        ...(entry?.context_window !== undefined && { context_window: entry.context_window }),
        ...(entry?.price && { price: { ...entry.price } }),
        ...(found.provider.input && { input: found.provider.input }),
      };
    },
  };
}
