import { offeredModelsText } from '../discovery.js';
import { InvalidInputError } from '../errors/invalid-input-error.js';
import type { ChatModel, ModelProvider } from '../ports/model-provider.js';
import type { ToolProvider } from '../ports/tool-provider.js';
import type { AgentConfig } from '../records.js';
import { invalidField } from '../validation.js';

function unsupported(models: ModelProvider, model: string): string {
  return `Unsupported model "${model}". Name a model as provider/model; offered: ${offeredModelsText(models)}`;
}

/**
 * Checks that a configuration names a model and a tool the service offers.
 * @throws InvalidInputError naming the field, and what is offered instead.
 */
export function checkOffered(
  models: ModelProvider,
  tools: ToolProvider,
  config: { model: string; tool: string | null },
): void {
  if (!models.languageModel(config.model)) throw invalidField('model', unsupported(models, config.model));
  if (config.tool !== null && !tools.tools(config.tool)) {
    const supported = tools.listTools();
    const message = `Unknown tool "${config.tool}". ${supported.length ? `Supported tools: ${supported.join(', ')}` : 'This server offers no tools'}`;
    throw new InvalidInputError({ message, details: { tool: { message, path: ['tool'] } } });
  }
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
