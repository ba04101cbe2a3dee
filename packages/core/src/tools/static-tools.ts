import type { ToolSet } from 'ai';
import type { ToolProvider } from '../ports/tool-provider.js';

/**
 * A tool provider over a fixed map of integration names to AI SDK tool sets.
 * @example staticTools({ weather: { getWeather: tool({ ... }) } })
 */
export function staticTools(integrations: Record<string, ToolSet> = {}): ToolProvider {
  const map = new Map(Object.entries(integrations));
  const names = Object.freeze([...map.keys()]);
  return { listTools: () => names, tools: (name) => map.get(name) };
}
