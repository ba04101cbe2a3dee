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

/** Why an agent's integrations cannot be merged: one is not offered, or gives a tool another gives. */
export type ToolsProblem =
  | { kind: 'unknown'; index: number; integration: string }
  | { kind: 'clash'; index: number; integration: string; other: string; name: string };

/**
 * The tool sets of `integrations` merged into one, in order, and the integration of each tool; or
 * the first problem. The one place integrations are merged: when an agent is saved and when it runs.
 */
export function mergeTools(
  provider: ToolProvider,
  integrations: readonly string[],
): { tools: ToolSet; integrationOf: Map<string, string> } | { problem: ToolsProblem } {
  const tools: ToolSet = {};
  const integrationOf = new Map<string, string>();
  for (const [index, integration] of integrations.entries()) {
    const set = provider.tools(integration);
    if (!set) return { problem: { kind: 'unknown', index, integration } };
    for (const [name, tool] of Object.entries(set)) {
      const other = integrationOf.get(name);
      if (other !== undefined) return { problem: { kind: 'clash', index, integration, other, name } };
      integrationOf.set(name, integration);
      tools[name] = tool;
    }
  }
  return { tools, integrationOf };
}

function problemText(problem: ToolsProblem): string {
  return problem.kind === 'unknown'
    ? `The server no longer offers the tool "${problem.integration}"; update the agent's tools`
    : `The tools "${problem.other}" and "${problem.integration}" both have a tool named "${problem.name}"; keep one of them`;
}

/**
 * The tools of a run: the agent's integrations merged ({@link mergeTools}) and which need approval.
 * A `require_approval` name that matches no integration or tool any more (a tool renamed since the
 * agent was saved) fails the run rather than letting that tool run unasked.
 * @throws InvalidInputError naming `tools` or `require_approval`.
 */
export function agentTools(
  provider: ToolProvider,
  config: Pick<AgentConfig, 'tool' | 'tools' | 'require_approval'>,
): AgentTools {
  // A configuration is normally whole (`agentShape`); one read as stored before `tools` has `tool` only.
  const names = config.tools ?? (config.tool ? [config.tool] : []);
  const merged = mergeTools(provider, names);
  if ('problem' in merged) throw toolsError(problemText(merged.problem));
  const { tools, integrationOf } = merged;
  const gates = config.require_approval ?? [];
  const lost = gates.find((gate) => !names.includes(gate) && !integrationOf.has(gate));
  if (lost !== undefined) {
    const message = `require_approval names "${lost}", which the agent's tools no longer give; update the agent`;
    throw new InvalidInputError({ message, details: { require_approval: { message, path: ['require_approval'] } } });
  }
  if (integrationOf.size === 0) return { tools: undefined, integrationOf, approval: undefined };
  const gated = new Set(gates);
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
