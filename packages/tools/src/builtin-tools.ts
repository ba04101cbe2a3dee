import { staticTools, type ToolProvider } from '@agenthost/core';
import type { ToolSet } from 'ai';
import { calculatorTool } from './calculator.js';
import { datetimeTool } from './datetime.js';
import { webSearchTool } from './web-search.js';

/** Options of {@link builtinTools}. */
export interface BuiltinToolsOptions {
  /** The Tavily API key (usually `process.env.TAVILY_API_KEY`); without one there is no `web_search`. */
  tavilyApiKey?: string | undefined;
  /** The Tavily base URL (default `https://api.tavily.com`). */
  tavilyBaseURL?: string | undefined;
  /** The clock of `datetime` (default: the system clock). */
  now?: (() => Date) | undefined;
  /** The fetch implementation of `web_search` (default: the global `fetch`). */
  fetch?: typeof fetch | undefined;
}

/**
 * The integrations this package implements itself: `calculator`, `datetime`, and `web_search` when a
 * Tavily API key is given. Each integration is one tool of the same name.
 *
 * @example new AgentService({ ..., tools: builtinTools({ tavilyApiKey: process.env.TAVILY_API_KEY }) })
 */
export function builtinTools(options: BuiltinToolsOptions = {}): ToolProvider {
  const integrations: Record<string, ToolSet> = {
    calculator: { calculator: calculatorTool() },
    datetime: { datetime: datetimeTool(options.now ? { now: options.now } : {}) },
  };
  if (options.tavilyApiKey) {
    integrations.web_search = {
      web_search: webSearchTool({
        apiKey: options.tavilyApiKey,
        ...(options.tavilyBaseURL ? { baseURL: options.tavilyBaseURL } : {}),
        ...(options.fetch ? { fetch: options.fetch } : {}),
      }),
    };
  }
  return staticTools(integrations);
}
