import type { AgentRecord, AgentVersion, AgentVersionList } from '@agenthost/core';
import { isObject } from './is-object.js';

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

/** A version of an agent as the HTTP API answers it. */
export type WireAgentVersion = Omit<AgentVersion, 'config'> & { config: WireAgentConfig };

/** A page of versions as the HTTP API answers it. */
export type WireAgentVersionList = Omit<AgentVersionList, 'versions'> & { versions: WireAgentVersion[] };

const wireConfig = (config: AgentRecord['config']): WireAgentConfig => ({
  ...config,
  selectedModel: config.model,
  selectedTool: config.tool,
});

/** An agent record with the alias fields in its `config`. */
export function wireAgent(agent: AgentRecord): WireAgentRecord {
  return { ...agent, config: wireConfig(agent.config) };
}

/** A page of versions with the alias fields in their `config`. */
export function wireVersions(list: AgentVersionList): WireAgentVersionList {
  return { ...list, versions: list.versions.map(wireVersion) };
}

/** A version with the alias fields in its `config`. */
export function wireVersion(version: AgentVersion): WireAgentVersion {
  return { ...version, config: wireConfig(version.config) };
}

/** `field`'s value, or its alias's when only that is given: a record read, changed and sent back whole keeps a stale alias. */
function merged(body: Record<string, unknown>, field: string, alias: string): unknown {
  return body[field] !== undefined ? body[field] : body[alias];
}

/** A tool name as stored: Truffle's name for web search becomes `web_search`, unless the host offers a tool of that very name. */
function toolName(tool: unknown, offered: readonly string[]): unknown {
  if (typeof tool !== 'string' || offered.includes(tool)) return tool;
  const aliased = TOOL_ALIASES[tool.trim().toLowerCase()];
  return aliased && offered.includes(aliased) ? aliased : tool;
}

/**
 * A create or change body with the aliases resolved: `selectedModel` and `selectedTool` read as
 * `model` and `tool` when those are not given (when both are, agenthost's field wins), and a tool
 * alias as the tool it names among those `offered`. A body that is not an object is returned as it
 * came, for the service to report.
 */
export function resolveAliases(body: unknown, offered: readonly string[]): unknown {
  if (!isObject(body)) return body;
  const { selectedModel: _model, selectedTool: _tool, ...rest } = body;
  const model = merged(body, 'model', 'selectedModel');
  // With `tools` given, `tool` is its first; a `selectedTool` alone is an old client's copy of `tool`, left out.
  const tool = body.tools !== undefined && body.tool === undefined ? undefined : merged(body, 'tool', 'selectedTool');
  return {
    ...rest,
    ...(model !== undefined && { model }),
    ...(tool !== undefined && { tool: toolName(tool, offered) }),
  };
}
