import { AgentService, echoModels } from '@agenthost/core';
import { MemoryStore } from '@agenthost/storage';

/** Creates an agent and holds a two-turn conversation with it; returns both replies. */
export async function converse(): Promise<string[]> {
  const service = new AgentService({ store: new MemoryStore(), models: echoModels() });

  const agent = await service.createAgent('acme', {
    name: 'Support Agent',
    instruction: 'You are a helpful support agent.',
    model: 'echo', // the offline development model; e.g. 'openai/gpt-5-mini' with modelRegistry([openAIProvider()])
  });

  const first = await service.runAgent('acme', agent.agent_id, { input: 'My order has not arrived.' });
  const second = await service.runAgent('acme', agent.agent_id, {
    input: 'It was order 1042.',
    session_id: first.session_id,
  });
  return [first.output, second.output];
}
