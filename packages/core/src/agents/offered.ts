import { offeredModelsText } from '../discovery.js';
import { InvalidInputError } from '../errors/invalid-input-error.js';
import type { ChatModel, ModelProvider } from '../ports/model-provider.js';
import type { ToolProvider } from '../ports/tool-provider.js';
import type { AgentConfig } from '../records.js';
import { mergeTools } from '../runs/agent-tools.js';
import { invalidField } from '../validation.js';

function unsupported(models: ModelProvider, model: string): string {
  return `Unsupported model "${model}". Name a model as provider/model; offered: ${offeredModelsText(models)}`;
}

/** The parts of a configuration {@link checkOffered} reads. */
export type OfferedFields = Pick<
  AgentConfig,
  'model' | 'tools' | 'require_approval' | 'fallback_models' | 'max_output_tokens'
>;

/**
 * Checks that a configuration names models and tools the service offers: its model, each fallback
 * model (none the model itself), each tool integration; that the tools of its integrations have
 * distinct names; that each `require_approval` name is one of its integrations or one of their tools;
 * and that `max_output_tokens` is within the server's bound.
 * @throws InvalidInputError naming the field, and what is offered instead.
 */
export function checkOffered(
  models: ModelProvider,
  tools: ToolProvider,
  config: OfferedFields,
  maxOutputTokens: number,
): void {
  if (!models.languageModel(config.model)) throw invalidField('model', unsupported(models, config.model));
  config.fallback_models.forEach((name, i) => {
    if (name === config.model)
      throw fieldError('fallback_models', i, `fallback_models must not name the agent's model "${name}"`);
    if (!models.languageModel(name)) throw fieldError('fallback_models', i, unsupported(models, name));
  });
  const toolNames = offeredToolNames(tools, config.tools);
  config.require_approval.forEach((name, i) => {
    if (!config.tools.includes(name) && !toolNames.has(name)) {
      const message = `require_approval names "${name}", which is neither one of the agent's tools nor a tool they give${toolNames.size ? ` (${[...toolNames].join(', ')})` : ''}`;
      throw fieldError('require_approval', i, message);
    }
  });
  if (config.max_output_tokens !== null && config.max_output_tokens > maxOutputTokens)
    throw invalidField('max_output_tokens', `max_output_tokens must be at most ${maxOutputTokens} on this server`);
}

/**
 * The names of the tools the model sees from `integrations`.
 * @throws InvalidInputError naming `tools` (or `tool` for the first) for an integration the service
 *   does not offer, or two integrations that give a tool of the same name.
 */
function offeredToolNames(tools: ToolProvider, integrations: readonly string[]): Set<string> {
  const merged = mergeTools(tools, integrations);
  if (!('problem' in merged)) return new Set(merged.integrationOf.keys());
  const { problem } = merged;
  if (problem.kind === 'clash')
    throw fieldError(
      'tools',
      problem.index,
      `"${problem.integration}" and "${problem.other}" both give a tool named "${problem.name}"; use one`,
    );
  const supported = tools.listTools();
  const message = `Unknown tool "${problem.integration}". ${supported.length ? `Supported tools: ${supported.join(', ')}` : 'This server offers no tools'}`;
  throw problem.index === 0 ? toolError(message) : fieldError('tools', problem.index, message);
}

/** The error about the first tool: named `tool`, the single-tool form of `tools` every client knows. */
function toolError(message: string): InvalidInputError {
  return new InvalidInputError({ message, details: { tool: { message, path: ['tool'] } } });
}

function fieldError(field: string, index: number, message: string): InvalidInputError {
  return new InvalidInputError({ details: { [field]: { message, path: [field, index] } } });
}

/**
 * The model of an agent.
 * @throws InvalidInputError when the service no longer offers it.
 */
export function agentModel(models: ModelProvider, agent: { config: Pick<AgentConfig, 'model'> }): ChatModel {
  const model = models.languageModel(agent.config.model);
  if (!model) {
    // The agent was created when the model was offered; the server's configuration has changed since.
    throw new InvalidInputError({
      message: `The agent's model "${agent.config.model}" is not offered by this server`,
      details: { model: { message: unsupported(models, agent.config.model), path: ['model'] } },
    });
  }
  return model;
}
