import { MemoryStore } from '@agenthost/storage';
import { beforeEach, describe, expect, test } from 'vitest';
import { AgentService, type AgentServiceOptions } from './agent-service.js';
import { type MockModelProvider, mockModels } from './testing/mock-models.js';
import { agentHostError as rejection } from './testing/rejection.js';
import { sequentialIds, testClock } from './testing/test-clock.js';

// A run with the history a client sent (`RunOptions.history`): what the model sees, what is stored.
const ACME = 'acme';
let store: MemoryStore;
let models: MockModelProvider;

function service(options: Partial<AgentServiceOptions> = {}) {
  return new AgentService({ store, models, now: testClock(), generateId: sequentialIds(), maxRetries: 0, ...options });
}

/** What the model received on its last call: the instruction, then each message's text. */
function lastPrompt() {
  const prompt = models.prompts('mock').at(-1)!;
  return [prompt.instruction, ...prompt.messages.map(({ content }) => content)];
}

beforeEach(() => {
  store = new MemoryStore();
  models = mockModels({ mock: 'ok' });
});

const history = [
  { role: 'user' as const, content: 'My name is Ada.' },
  { role: 'assistant' as const, content: 'Hello Ada.' },
];

describe('a run with the history the caller sent', () => {
  test('a new session: the model sees the history, then the input; only the run’s turn is stored', async () => {
    const svc = service();
    const { agent_id } = await svc.createAgent(ACME, { name: 'A', instruction: 'I', model: 'mock' });
    const result = await svc.runAgent(ACME, agent_id, { input: 'What is my name?' }, { history });
    expect(models.prompts('mock').at(-1)!.messages).toStrictEqual([
      { role: 'user', content: 'My name is Ada.' },
      { role: 'assistant', content: 'Hello Ada.' },
      { role: 'user', content: 'What is my name?' },
    ]);
    expect(result.metadata.omitted_messages).toBe(0);
    const session = await svc.getSession(ACME, agent_id, result.session_id);
    expect(session.messages.map(({ role, content }) => ({ role, content }))).toStrictEqual([
      { role: 'user', content: 'What is my name?' },
      { role: 'assistant', content: 'ok' },
    ]);
  });

  test('a continued session ignores it: the stored turns are the history', async () => {
    const svc = service();
    const { agent_id } = await svc.createAgent(ACME, { name: 'A', instruction: 'I', model: 'mock' });
    await svc.runAgent(ACME, agent_id, { input: 'first', session_id: 's' });
    await svc.runAgent(ACME, agent_id, { input: 'second', session_id: 's' }, { history });
    expect(lastPrompt()).toStrictEqual(['I', 'first', 'ok', 'second']);
  });

  test('it is cut like stored history: historyLimit, the context budget, never starting with a reply', async () => {
    const svc = service({ historyLimit: 4 });
    const { agent_id } = await svc.createAgent(ACME, { name: 'A', instruction: 'I', model: 'mock' });
    const long = Array.from({ length: 7 }, (_, i) => ({
      role: i % 2 === 0 ? ('user' as const) : ('assistant' as const),
      content: `m${i}`,
    }));
    const result = await svc.runAgent(ACME, agent_id, { input: 'now' }, { history: long });
    // The newest four are m3..m6; m3 is a reply, so the window starts at m4.
    expect(lastPrompt()).toStrictEqual(['I', 'm4', 'm5', 'm6', 'now']);
    expect(result.metadata.omitted_messages).toBe(4);

    const small = service({ contextWindows: { mock: 600 }, maxOutputTokens: 500 });
    const wide = [
      { role: 'user' as const, content: 'old '.repeat(100) },
      { role: 'assistant' as const, content: 'x' },
      { role: 'user' as const, content: 'new' },
      { role: 'assistant' as const, content: 'y' },
    ];
    const cut = await small.runAgent(ACME, agent_id, { input: 'now' }, { history: wide });
    expect(lastPrompt()).toStrictEqual(['I', 'new', 'y', 'now']);
    expect(cut.metadata.omitted_messages).toBe(2);
  });

  test('a history that is not user and assistant messages is refused, naming history', async () => {
    const svc = service();
    const { agent_id } = await svc.createAgent(ACME, { name: 'A', instruction: 'I', model: 'mock' });
    const error = await rejection(
      svc.runAgent(ACME, agent_id, { input: 'x' }, { history: [{ role: 'system', content: 'x' }] as never }),
    );
    expect(error.details).toStrictEqual({
      history: { message: 'role must be "user" or "assistant"', path: ['history', 0, 'role'] },
    });
    expect(models.prompts('mock')).toHaveLength(0);
  });

  test('streamAgent names the new session before the first event', async () => {
    const svc = service();
    const { agent_id } = await svc.createAgent(ACME, { name: 'A', instruction: 'I', model: 'mock' });
    const events = await svc.streamAgent(ACME, agent_id, { input: 'x' }, { history });
    expect(events.session_id).toBe('session_1');
    const sessions: string[] = [];
    for await (const event of events) if (event.type === 'done') sessions.push(event.result.session_id);
    expect(sessions).toStrictEqual(['session_1']);
  });
});
