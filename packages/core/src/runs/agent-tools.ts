import type { ToolSet } from 'ai';
import { InvalidInputError } from '../errors/invalid-input-error.js';
import type { ToolProvider } from '../ports/tool-provider.js';
import type { AgentConfig } from '../records.js';

/** The tools a run hands to the model: every integration's merged into one set, and where each came from. */
export interface AgentTools {
  /** The merged tool set; `undefined` when the agent has no tools. */
  tools: ToolSet | undefined;
  /** The integration (as named in the agent's `tools`) of each tool the model sees. */
  integrationOf: ReadonlyMap<string, string>;
  /** The AI SDK approval configuration: `user-approval` for each tool that waits for a person. */
  approval: Record<string, 'user-approval'> | undefined;
}

function toolsError(message: string): InvalidInputError {
  return new InvalidInputError({ message, details: { tools: { message, path: ['tools'] } } });
}

/**
 * Merges the tool sets of an agent's integrations into one, in the order the agent names them.
 * @throws InvalidInputError naming `tools` when the server no longer offers an integration, or two
 *   integrations give a tool of the same name (the model could not tell them apart).
 */
export function agentTools(
  provider: ToolProvider,
  config: Pick<AgentConfig, 'tool' | 'tools' | 'require_approval'>,
): AgentTools {
  const tools: ToolSet = {};
  const integrationOf = new Map<string, string>();
  // A configuration is normally whole (`agentShape`); one read as stored before `tools` has `tool` only.
  const names = config.tools ?? (config.tool ? [config.tool] : []);
  for (const integration of names) {
    const set = provider.tools(integration);
    if (!set) throw toolsError(`The server no longer offers the tool "${integration}"; update the agent's tools`);
    for (const [name, tool] of Object.entries(set)) {
      const other = integrationOf.get(name);
      if (other !== undefined)
        throw toolsError(
          `The tools "${other}" and "${integration}" both have a tool named "${name}"; keep one of them`,
        );
      integrationOf.set(name, integration);
      tools[name] = tool;
    }
  }
  if (integrationOf.size === 0) return { tools: undefined, integrationOf, approval: undefined };
  const gated = new Set(config.require_approval ?? []);
  const approved = [...integrationOf].filter(([name, integration]) => gated.has(name) || gated.has(integration));
  const approval = approved.length
    ? Object.fromEntries(approved.map(([name]) => [name, 'user-approval' as const]))
    : undefined;
  return { tools, integrationOf, approval };
}

/**
 * The integrations that the named tool calls belong to, in the order of their first call. A name
 * the run's tools lack (a model calling a tool it was not given) counts for none.
 */
export function toolsUsed(toolNames: readonly string[], integrationOf: ReadonlyMap<string, string>): string[] {
  return [...new Set(toolNames.flatMap((name) => integrationOf.get(name) ?? []))];
}
