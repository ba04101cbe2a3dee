import { ANY_MODEL, type ModelInfo, modelsByProvider } from '@agenthost/core';

/** Most model names the banner lists per provider; past that it counts them. */
const SHOWN = 8;

function described(ids: string[]): string {
  if (ids.length === 1 && ids[0] === ANY_MODEL) return 'any model id';
  return ids.length > SHOWN ? `${ids.length} models` : ids.join(', ');
}

/** The banner's lines about the offered models: one per provider, its model ids, or how many when they are many. */
export function modelLines(models: readonly ModelInfo[]): string[] {
  const lines = [...modelsByProvider(models)].map(([provider, ids]) => `    ${provider}: ${described(ids)}`);
  return ['  models (name them provider/model; all of them: GET /api/v1/models):', ...lines];
}
