import type { ModelInfo } from '@agenthost/core';

/** Most model names the banner lists per provider; past that it counts them. */
const SHOWN = 8;

/** The banner's lines about the offered models: one per provider, its model ids, or how many when they are many. */
export function modelLines(models: readonly ModelInfo[]): string[] {
  const byProvider = new Map<string, string[]>();
  for (const { name, provider } of models) {
    const id = name.startsWith(`${provider}/`) ? name.slice(provider.length + 1) : name;
    byProvider.set(provider, [...(byProvider.get(provider) ?? []), id]);
  }
  const lines = [...byProvider].map(([provider, ids]) => `    ${provider}: ${ids.length > SHOWN ? `${ids.length} models` : ids.join(', ')}`);
  return ['  models (name them provider/model; all of them: GET /api/v1/models):', ...lines];
}
