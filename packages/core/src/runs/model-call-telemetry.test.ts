import { MemoryStore } from '@agenthost/storage';
import { registerTelemetry } from 'ai';
import { afterAll, describe, expect, test } from 'vitest';
import { AgentService } from '../agent-service.js';
import { echoModels } from '../models/static-models.js';

// An app may register AI SDK telemetry for its own calls; the SDK then records every call of the
// process, inputs and outputs included, unless a call says otherwise.
const seen: { event: string; text: string }[] = [];
const spy = Object.fromEntries(
  ['onStart', 'onStepStart', 'onLanguageModelCallStart', 'onLanguageModelCallEnd', 'onStepFinish', 'onFinish'].map(
    (event) => [
      event,
      (data: unknown) => {
        seen.push({ event, text: JSON.stringify(data) ?? '' });
      },
    ],
  ),
);
registerTelemetry(spy);
afterAll(() => registerTelemetry());

async function run(service: AgentService) {
  const { agent_id } = await service.createAgent('acme', { name: 'A', instruction: 'Be brief.', model: 'echo' });
  await service.runAgent('acme', agent_id, { input: 'my private question' });
  for await (const _ of await service.streamAgent('acme', agent_id, { input: 'another private question' })) void _;
}

describe("the AI SDK's telemetry of agenthost's runs", () => {
  test('is off unless agenthost telemetry is on: an integration the app registered sees nothing of its runs', async () => {
    seen.length = 0;
    await run(new AgentService({ store: new MemoryStore(), models: echoModels() }));
    expect(seen).toStrictEqual([]);
  });

  test('when on, reaches the given integrations without the run’s content unless asked', async () => {
    seen.length = 0;
    await run(
      new AgentService({
        store: new MemoryStore(),
        models: echoModels(),
        telemetry: { enabled: true, integrations: [spy] },
      }),
    );
    expect(seen.map((s) => s.event)).toContain('onLanguageModelCallEnd');
    expect(seen.filter((s) => s.text.includes('private question'))).toStrictEqual([]);
  });
});
