import type { ModelInfo } from '@agenthost/core';

/** Most model names the banner shows per provider; the rest are counted. */
const SHOWN = 8;

/** The banner's lines about the offered models: one per provider, its model ids (the first few of a long list). */
export function modelLines(models: readonly ModelInfo[]): string[] {
  const byProvider = new Map<string, string[]>();
  for (const { name, provider } of models) {
    const id = name.startsWith(`${provider}/`) ? name.slice(provider.length + 1) : name;
    byProvider.set(provider, [...(byProvider.get(provider) ?? []), id]);
  }
  const lines = [...byProvider].map(([provider, ids]) => {
    const more = ids.length > SHOWN ? `, ... (${ids.length - SHOWN} more)` : '';
    return `    ${provider}: ${ids.slice(0, SHOWN).join(', ')}${more}`;
  });
  return ['  models (name them provider/model; all of them: GET /api/v1/models):', ...lines];
}
