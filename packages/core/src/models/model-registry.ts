import { createProviderRegistry } from 'ai';
import type { ChatModel, ModelInfo, ModelProvider } from '../ports/model-provider.js';
import { catalogEntry } from './catalog.js';
import type { NamedProvider } from './providers.js';

const SEPARATOR = '/';

/**
 * Serves models of several providers by `provider/model` name (`openai/gpt-5-mini`,
 * `anthropic/claude-sonnet-4-5`, `ollama/llama3.2`), through the AI SDK's own provider registry. A
 * bare name (`gpt-5-mini`, as agents made before provider names and Truffle clients use) means the
 * first provider, in the order given, that offers it. Context windows and prices come from the
 * catalog of each provider that has one.
 *
 * @example
 * modelRegistry([openAIProvider(), anthropicProvider(), compatibleProvider('ollama', { baseURL: 'http://127.0.0.1:11434/v1' })])
 * @throws TypeError for two providers of one name.
 */
export function modelRegistry(providers: readonly NamedProvider[]): ModelProvider {
  const byName = new Map(providers.map((p) => [p.name, p]));
  if (byName.size !== providers.length) throw new TypeError('modelRegistry: two providers have the same name');
  const registry = createProviderRegistry(Object.fromEntries(providers.map((p) => [p.name, p.provider])), { separator: SEPARATOR });
  const offers = (p: NamedProvider, id: string) => id.length > 0 && (p.models === 'any' || p.models.includes(id));
  const names = Object.freeze(providers.flatMap((p) => (p.models === 'any' ? [] : p.models.map((id) => `${p.name}${SEPARATOR}${id}`))));

  /** The provider and model id a name means, if any provider offers it. */
  function resolve(name: string): { provider: NamedProvider; id: string } | undefined {
    const at = name.indexOf(SEPARATOR);
    if (at > 0) {
      const provider = byName.get(name.slice(0, at));
      const id = name.slice(at + 1);
      if (provider && offers(provider, id)) return { provider, id };
    }
    const provider = providers.find((p) => p.models !== 'any' && offers(p, name));
    return provider && { provider, id: name };
  }

  return {
    listModels: () => names,
    languageModel(name): ChatModel | undefined {
      const found = resolve(name);
      return found && (registry.languageModel(`${found.provider.name}${SEPARATOR}${found.id}` as never) as ChatModel);
    },
    modelInfo(name): ModelInfo | undefined {
      const found = resolve(name);
      if (!found) return undefined;
      const entry = found.provider.catalog ? catalogEntry(found.provider.catalog, found.id) : undefined;
      return {
        name: `${found.provider.name}${SEPARATOR}${found.id}`,
        provider: found.provider.name,
        ...(entry?.context_window !== undefined && { context_window: entry.context_window }),
        ...(entry?.price && { price: entry.price }),
      };
    },
  };
}
