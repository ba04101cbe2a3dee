import { describe, expect, test } from 'vitest';
import { agentBody, draftOf, toggled } from './agent-draft';
import { type AgentConfig, agentsPath } from './api';

const CONFIG: AgentConfig = {
  name: 'Helper',
  instruction: 'Help.',
  model: 'openai/gpt',
  tool: 'calculator',
  tools: ['calculator', 'datetime'],
  require_approval: ['datetime'],
  component: 'Chat',
  temperature: 0.2,
  top_p: null,
  max_output_tokens: 500,
  fallback_models: ['echo'],
  metadata: { team: 'support', tier: 'gold' },
};

describe('the agent form', () => {
  test('a new agent starts empty on the default model', () => {
    expect(draftOf(undefined, 'echo')).toStrictEqual({
      name: '',
      instruction: 'You are a helpful assistant.',
      model: 'echo',
      tools: [],
      require_approval: [],
      temperature: '',
      top_p: '',
      max_output_tokens: '',
      fallback_models: [],
      metadata: [],
    });
  });

  test('an agent read into the form and sent back is the same agent', () => {
    const { tool: _tool, component: _component, ...fields } = CONFIG;
    expect(agentBody(draftOf(CONFIG))).toStrictEqual(fields);
  });

  test('settings become numbers or null; approvals only of chosen tools; fallbacks without the model, once each', () => {
    const draft = {
      ...draftOf(CONFIG),
      name: '  Helper 2 ',
      tools: ['datetime'],
      require_approval: ['calculator', 'datetime'],
      temperature: ' 1.5 ',
      top_p: '',
      max_output_tokens: '',
      fallback_models: ['openai/gpt', 'echo', 'echo'],
      metadata: [
        { key: ' team ', value: 'sales' },
        { key: '', value: '' },
      ],
    };
    expect(agentBody(draft)).toStrictEqual({
      name: 'Helper 2',
      instruction: 'Help.',
      model: 'openai/gpt',
      tools: ['datetime'],
      require_approval: ['datetime'],
      temperature: 1.5,
      top_p: null,
      max_output_tokens: null,
      fallback_models: ['echo'],
      metadata: { team: 'sales' },
    });
  });

  test.each([
    [{ temperature: 'warm' }, 'Temperature must be a number'],
    [{ max_output_tokens: '1.5' }, 'Max output tokens must be a whole number'],
    [
      { metadata: [{ key: 'has space', value: 'x' }] },
      'Metadata key "has space" must be 1 to 64 letters, digits, "_", "-", "." or ":"',
    ],
    [
      { metadata: [{ key: '', value: 'orphan' }] },
      'Metadata key "" must be 1 to 64 letters, digits, "_", "-", "." or ":"',
    ],
    [
      {
        metadata: [
          { key: 'team', value: 'a' },
          { key: 'team', value: 'b' },
        ],
      },
      'Metadata key "team" is given twice',
    ],
  ])('%o is refused before it is sent: %s', (fields, message) => {
    expect(() => agentBody({ ...draftOf(CONFIG), ...fields })).toThrow(new Error(message));
  });

  test('toggled adds at the end once, and takes out', () => {
    expect(toggled(['a'], 'b', true)).toStrictEqual(['a', 'b']);
    expect(toggled(['a', 'b'], 'a', true)).toStrictEqual(['a', 'b']);
    expect(toggled(['a', 'b'], 'a', false)).toStrictEqual(['b']);
  });
});

describe('agentsPath', () => {
  test('no filter, or an empty key: every agent', () => {
    expect(agentsPath(undefined)).toBe('/agents');
    expect(agentsPath({ key: ' ', value: 'x' })).toBe('/agents');
  });
  test('a pair: one metadata[key] parameter, key and value encoded', () => {
    expect(agentsPath({ key: 'team', value: 'support & sales' })).toBe(
      '/agents?metadata%5Bteam%5D=support%20%26%20sales',
    );
  });
});
