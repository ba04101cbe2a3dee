import type { ModelInfo, ModelProvider } from './ports/model-provider.js';
import type { ToolProvider } from './ports/tool-provider.js';

/** A tool integration as `GET /tools` shows it. */
export interface ToolInfo {
  /** The name an agent's `tool` (or `tools`) names it by. */
  name: string;
  /** What it does: its tool's own description, or the names of its tools when it has several. */
  description: string;
}

/** How an endpoint that takes any model id is listed: `ollama/*`. */
export const ANY_MODEL = '*';

/** What is known of a name a provider serves; the provider is the part before `/`, else `custom`. */
export function infoOf(models: ModelProvider, name: string): ModelInfo {
  const at = name.indexOf('/');
  return models.modelInfo?.(name) ?? { name, provider: at > 0 ? name.slice(0, at) : 'custom' };
}

/**
 * Every offered model with what is known of it, in the provider's order, then one entry
 * `<provider>/*` for each endpoint that takes any model id.
 */
export function describeModels(models: ModelProvider): ModelInfo[] {
  const open = (models.openProviders?.() ?? []).map(
    (provider): ModelInfo => ({ name: `${provider}/${ANY_MODEL}`, provider }),
  );
  // What a model reads is always said: text only unless its provider says more.
  return [...models.listModels().map((name) => infoOf(models, name)), ...open].map((info) => ({
    ...info,
    input: info.input ?? ['text'],
  }));
}

/** Model ids by provider, in order: `echo` under `agenthost`, `gpt-5-mini` under `openai`. */
export function modelsByProvider(models: readonly ModelInfo[]): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const { name, provider } of models) {
    const id = name.startsWith(`${provider}/`) ? name.slice(provider.length + 1) : name;
    groups.set(provider, [...(groups.get(provider) ?? []), id]);
  }
  return groups;
}

/** The offered model names grouped by provider, for a message: `openai: gpt-5, gpt-5-mini; ollama: any model id`. */
export function offeredModelsText(models: ModelProvider): string {
  const groups = [...modelsByProvider(describeModels(models))];
  return groups
    .map(([provider, ids]) => `${provider}: ${ids.map((id) => (id === ANY_MODEL ? 'any model id' : id)).join(', ')}`)
    .join('; ');
}

/** Every offered tool integration with a description. */
export function describeTools(tools: ToolProvider): ToolInfo[] {
  return tools.listTools().map((name) => {
    const set = Object.entries(tools.tools(name) ?? {});
    // A tool's description may also be a function of the run's context: no use for a listing.
    const described = set.length === 1 ? set[0]![1].description : undefined;
    const only = typeof described === 'string' ? described : undefined;
    return { name, description: only ?? `Tools: ${set.map(([tool]) => tool).join(', ')}` };
  });
}
