import type { ToolProvider } from '@agenthost/core';

/**
 * One tool provider over several: lists every name once, in provider order, and serves each name
 * from the first provider that has it.
 *
 * @example combineTools(builtinTools({ tavilyApiKey }), await mcpTools(servers))
 */
export function combineTools(...providers: ToolProvider[]): ToolProvider {
  return {
    // Read on every call: a provider's list may change (a reconnected MCP server, say).
    listTools: () => [...new Set(providers.flatMap((provider) => provider.listTools()))],
    tools: (name) => {
      for (const provider of providers) {
        const tools = provider.tools(name);
        if (tools) return tools;
      }
      return undefined;
    },
  };
}
