import type { ModelInfo, ModelProvider } from './ports/model-provider.js';
import type { ToolProvider } from './ports/tool-provider.js';

/** A tool integration as `GET /tools` shows it. */
export interface ToolInfo {
  /** The name an agent's `tool` (or `tools`) names it by. */
  name: string;
  /** What it does: its tool's own description, or the names of its tools when it has several. */
  description: string;
}

/** What is known of a name a provider serves; the provider is the part before `/`, else `custom`. */
export function infoOf(models: ModelProvider, name: string): ModelInfo {
  const at = name.indexOf('/');
  return models.modelInfo?.(name) ?? { name, provider: at > 0 ? name.slice(0, at) : 'custom' };
}

/** Every offered model with what is known of it, in the provider's order. */
export function describeModels(models: ModelProvider): ModelInfo[] {
  return models.listModels().map((name) => infoOf(models, name));
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

/** The offered model names grouped by provider, for a message: `openai: gpt-5, gpt-5-mini; agenthost: echo`. */
export function offeredModelsText(models: ModelProvider): string {
  const groups = new Map<string, string[]>();
  for (const { name, provider } of describeModels(models)) {
    const short = name.startsWith(`${provider}/`) ? name.slice(provider.length + 1) : name;
    groups.set(provider, [...(groups.get(provider) ?? []), short]);
  }
  return [...groups].map(([provider, names]) => `${provider}: ${names.join(', ')}`).join('; ');
}

/** The estimated cost of a run in US dollars, from the model's list price; `undefined` when the price is not known. */
export function estimatedCost(info: ModelInfo | undefined, tokens: { prompt: number; completion: number }): number | undefined {
  if (!info?.price) return undefined;
  const dollars = (tokens.prompt * info.price.input_per_mtok + tokens.completion * info.price.output_per_mtok) / 1_000_000;
  // Rounded to billionths of a dollar, which drops floating-point noise and keeps a small run's cost.
  return Math.round(dollars * 1e9) / 1e9;
}
