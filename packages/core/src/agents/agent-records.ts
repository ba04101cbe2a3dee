import { isDeepStrictEqual } from 'node:util';
import type { AgentConfig, AgentRecord } from '../records.js';
import {
  type CreateAgentInput,
  createAgentInputSchema,
  type UpdateAgentInput,
  updateAgentInputSchema,
} from '../schemas.js';
import { invalidField, parseInput } from '../validation.js';

/** An agent's configuration without its id: what create and update inputs describe. */
export type AgentSettings = Omit<AgentConfig, 'agent_id'>;

/** A stored configuration, possibly from before some fields existed. */
type StoredConfig = Partial<AgentConfig> & Pick<AgentConfig, 'name' | 'instruction' | 'model'>;

/** A stored record, possibly from before configurations had tools, settings, metadata and versions. */
type StoredRecord = Omit<AgentRecord, 'config' | 'metadata' | 'version'> & {
  config: StoredConfig;
  metadata?: Record<string, string>;
  version?: number;
};

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s) => typeof s === 'string') : []);
const numberOrNull = (v: unknown): number | null => (typeof v === 'number' ? v : null);

/**
 * A configuration with every field, in one order: what a stored one (of any age) reads as. `tool`
 * follows `tools` (an old configuration's single `tool` becomes its `tools`).
 */
export function configShape(config: StoredConfig, agentId: string): AgentConfig {
  const tools = Array.isArray(config.tools) ? strings(config.tools) : config.tool ? [config.tool] : [];
  return {
    agent_id: agentId,
    name: config.name,
    instruction: config.instruction,
    model: config.model,
    tool: tools[0] ?? null,
    tools,
    require_approval: strings(config.require_approval),
    component: config.component ?? 'Chat',
    temperature: numberOrNull(config.temperature),
    top_p: numberOrNull(config.top_p),
    max_output_tokens: numberOrNull(config.max_output_tokens),
    fallback_models: strings(config.fallback_models),
    metadata: { ...(config.metadata ?? {}) },
  };
}

/**
 * An agent record as the service returns it, whatever its age in the store: every configuration
 * field there (`null`, `[]` or `{}` when unset), `metadata` mirroring the configuration's, and a
 * version (1 for a record stored before versions were kept). The one place old records are read.
 */
export function agentShape(record: AgentRecord | StoredRecord): AgentRecord {
  const config = configShape(record.config, record.agent_id);
  return {
    agent_id: record.agent_id,
    name: config.name,
    config,
    metadata: { ...config.metadata },
    version: typeof record.version === 'number' ? record.version : 1,
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
}

/**
 * The tool list that `tool` and `tools` ask for together, or `undefined` when neither is given.
 * @throws InvalidInputError naming `tool` when both are given and `tool` is not the first of `tools`.
 */
function toolList(tool: string | null | undefined, tools: string[] | undefined): string[] | undefined {
  if (tools === undefined) return tool === undefined ? undefined : tool === null ? [] : [tool];
  if (tool !== undefined && tool !== (tools[0] ?? null))
    throw invalidField('tool', 'tool must be the first of tools (or null when tools is empty): they are one field');
  return tools;
}

/** Whether the raw input names `field` (a value of `undefined` counts as absent). */
const gives = (input: unknown, field: string) =>
  typeof input === 'object' && input !== null && (input as Record<string, unknown>)[field] !== undefined;

/**
 * The configuration a create input asks for.
 * @throws InvalidInputError for a missing, blank or mistyped field, or `tool` and `tools` that disagree.
 */
export function newAgentConfig(input: CreateAgentInput): AgentSettings {
  const parsed = parseInput(createAgentInputSchema, input);
  const tools = toolList(gives(input, 'tool') ? parsed.tool : undefined, parsed.tools) ?? [];
  return {
    name: parsed.name,
    instruction: parsed.instruction,
    model: parsed.model,
    tool: tools[0] ?? null,
    tools,
    require_approval: parsed.require_approval ?? [],
    component: parsed.component ?? 'Chat',
    temperature: parsed.temperature ?? null,
    top_p: parsed.top_p ?? null,
    max_output_tokens: parsed.max_output_tokens ?? null,
    fallback_models: parsed.fallback_models ?? [],
    metadata: parsed.metadata ?? {},
  };
}

/** A new agent's record, as first stored: version 1. */
export function newAgentRecord(agentId: string, config: AgentSettings, now: Date): AgentRecord {
  const at = now.toISOString();
  return agentShape({
    agent_id: agentId,
    name: config.name,
    config: { agent_id: agentId, ...config },
    version: 1,
    created_at: at,
    updated_at: at,
  });
}

/** Every field an update may change, as the error for an update that changes none names them. */
const CHANGEABLE_FIELDS = Object.keys(updateAgentInputSchema.shape).join(', ');

/**
 * The fields an update input changes (`tool` and `tools` as given: {@link changedConfig} joins them).
 * @throws InvalidInputError for a mistyped field, or an input that changes none.
 */
export function agentChanges(input: UpdateAgentInput): Partial<AgentSettings> {
  const changes: Partial<AgentSettings> = Object.fromEntries(
    Object.entries(parseInput(updateAgentInputSchema, input)).filter(([, v]) => v !== undefined),
  ) as Partial<AgentSettings>;
  if (Object.keys(changes).length === 0) throw invalidField('request', `Give at least one of ${CHANGEABLE_FIELDS}`);
  return changes;
}

/**
 * The tools an update asks for, or `undefined` when it names neither `tool` nor `tools`. When both
 * are given and disagree, the one that differs from the current configuration is the change (a
 * record read, changed in one of the two, and sent back whole).
 * @throws InvalidInputError naming `tool` when both disagree and both differ from the current ones.
 */
function updatedTools(current: AgentConfig, tool: string | null | undefined, tools: string[] | undefined) {
  if (tool !== undefined && tools !== undefined && tool !== (tools[0] ?? null)) {
    if (isDeepStrictEqual(tools, current.tools)) return toolList(tool, undefined);
    if (tool === current.tool) return tools;
  }
  return toolList(tool, tools);
}

/**
 * `current` with `changes` made (a `null` clears a setting); `tool` follows `tools`.
 * @throws InvalidInputError naming `tool` when `tool` and `tools` disagree (see `updatedTools`).
 */
export function changedConfig(current: AgentConfig, changes: Partial<AgentSettings>): AgentConfig {
  const { tool, tools, ...rest } = changes;
  const list = updatedTools(current, tool, tools);
  const merged = { ...current, ...rest, ...(list && { tools: list }) };
  return configShape({ ...merged, tool: merged.tools[0] ?? null }, current.agent_id);
}

/** Whether two configurations are the same (metadata pairs in any order). */
export function sameConfig(a: AgentConfig, b: AgentConfig): boolean {
  return isDeepStrictEqual(configShape(a, a.agent_id), configShape(b, b.agent_id));
}

/** An agent's record with `config` as its next version, made at `now`. */
export function changedAgent(current: AgentRecord, config: AgentConfig, now: Date): AgentRecord {
  // Strictly later than the last change, even when the clock has not moved (or moved back).
  const updated = new Date(Math.max(now.getTime(), Date.parse(current.updated_at) + 1)).toISOString();
  return agentShape({ ...current, config, version: current.version + 1, updated_at: updated });
}
