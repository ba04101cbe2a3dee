import { type AgentRecord, InvalidInputError } from '@agenthost/core';

/**
 * The names the `truffle-ai` SDK and the hosted service use for an agent's fields: `selectedModel`
 * and `selectedTool` beside `model` and `tool`, and tool names from Truffle's own examples. Records
 * are stored with agenthost's names; these are translated at the HTTP edge only.
 */

/** Tool names accepted for `web_search`, compared without case: Truffle's examples name it so. */
const TOOL_ALIASES: Readonly<Record<string, string>> = { 'tavily research': 'web_search', search: 'web_search' };

/** An agent's configuration as the HTTP API answers it: `selectedModel` and `selectedTool` repeat `model` and `tool`. */
export type WireAgentConfig = AgentRecord['config'] & { selectedModel: string; selectedTool: string | null };

/** An agent as the HTTP API answers it. */
export type WireAgentRecord = Omit<AgentRecord, 'config'> & { config: WireAgentConfig };

/** An agent record with the alias fields in its `config`. */
export function wireAgent(agent: AgentRecord): WireAgentRecord {
  return { ...agent, config: { ...agent.config, selectedModel: agent.config.model, selectedTool: agent.config.tool } };
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

function conflict(alias: string, field: string): InvalidInputError {
  const message = `${alias} and ${field} differ; send one of them, or both with the same value`;
  return new InvalidInputError({ details: { [alias]: { message, path: [alias] } } });
}

/** `field`'s value, or its alias's when only that is given. */
function merged(body: Record<string, unknown>, field: string, alias: string): unknown {
  const [value, aliased] = [body[field], body[alias]];
  if (aliased === undefined) return value;
  if (value !== undefined && value !== aliased) throw conflict(alias, field);
  return aliased;
}

/**
 * A create or change body with the aliases resolved: `selectedModel` and `selectedTool` read as
 * `model` and `tool` (an input error when both are given and differ), and a tool alias as the tool
 * it names. A body that is not an object is returned as it came, for the service to report.
 * @throws InvalidInputError naming the alias that differs from its field.
 */
export function resolveAliases(body: unknown): unknown {
  if (!isObject(body)) return body;
  const { selectedModel: _model, selectedTool: _tool, ...rest } = body;
  const model = merged(body, 'model', 'selectedModel');
  const tool = merged(body, 'tool', 'selectedTool');
  const named = typeof tool === 'string' ? (TOOL_ALIASES[tool.trim().toLowerCase()] ?? tool) : tool;
  return { ...rest, ...(model !== undefined && { model }), ...(tool !== undefined && { tool: named }) };
}
