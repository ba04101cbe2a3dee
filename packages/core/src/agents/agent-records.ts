import type { AgentConfig, AgentRecord } from '../records.js';
import {
  type CreateAgentInput,
  createAgentInputSchema,
  type UpdateAgentInput,
  updateAgentInputSchema,
} from '../schemas.js';
import { invalidField, parseInput } from '../validation.js';

/**
 * The configuration a create input asks for.
 * @throws InvalidInputError for a missing, blank or mistyped field.
 */
export function newAgentConfig(input: CreateAgentInput): Omit<AgentConfig, 'agent_id'> {
  const { name, instruction, model, tool, component } = parseInput(createAgentInputSchema, input);
  return { name, instruction, model, tool, component };
}

/** A new agent's record, as first stored. */
export function newAgentRecord(agentId: string, config: Omit<AgentConfig, 'agent_id'>, now: Date): AgentRecord {
  const at = now.toISOString();
  return {
    agent_id: agentId,
    name: config.name,
    config: { agent_id: agentId, ...config },
    created_at: at,
    updated_at: at,
  };
}

/**
 * The fields an update input changes.
 * @throws InvalidInputError for a mistyped field, or an input that changes none.
 */
export function agentChanges(input: UpdateAgentInput): Partial<AgentConfig> {
  const changes = Object.fromEntries(
    Object.entries(parseInput(updateAgentInputSchema, input)).filter(([, v]) => v !== undefined),
  ) as Partial<AgentConfig>;
  if (Object.keys(changes).length === 0)
    throw invalidField('request', 'Give at least one of name, instruction, model, tool, component');
  return changes;
}

/** An agent's record with `changes` made at `now`. */
export function changedAgent(current: AgentRecord, changes: Partial<AgentConfig>, now: Date): AgentRecord {
  const config: AgentConfig = { ...current.config, ...changes };
  // Strictly later than the last change, even when the clock has not moved (or moved back).
  const updated = new Date(Math.max(now.getTime(), Date.parse(current.updated_at) + 1)).toISOString();
  return { ...current, name: config.name, config, updated_at: updated };
}
