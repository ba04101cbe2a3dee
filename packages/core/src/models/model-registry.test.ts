import { describe, expect, test } from 'vitest';
import { catalogEntry, catalogModels } from './catalog.js';
import { modelRegistry } from './model-registry.js';
import { anthropicProvider, compatibleProvider, googleProvider, openAIProvider } from './providers.js';

const registry = () =>
  modelRegistry([
    openAIProvider({ apiKey: 'k', models: ['gpt-5-mini', 'shared-id'] }),
    anthropicProvider({ apiKey: 'k' }),
    googleProvider({ apiKey: 'k', models: ['gemini-2.5-flash', 'shared-id'] }),
    compatibleProvider('ollama', { baseURL: 'http://127.0.0.1:11434/v1' }),
    compatibleProvider('openrouter', { baseURL: 'https://openrouter.ai/api/v1', apiKey: 'k', models: ['openai/gpt-5-mini'] }),
  ]);

describe('modelRegistry', () => {
  test('serves provider/model names through each provider package', () => {
    const models = registry();
    expect(
      ['openai/gpt-5-mini', 'anthropic/claude-sonnet-4-5', 'google/gemini-2.5-flash', 'ollama/llama3.2', 'openrouter/openai/gpt-5-mini'].map((name) => {
        const model = models.languageModel(name) as { provider: string; modelId: string } | undefined;
        return [model?.provider, model?.modelId];
      }),
    ).toStrictEqual([
      ['openai.responses', 'gpt-5-mini'],
      ['anthropic.messages', 'claude-sonnet-4-5'],
      ['google.generative-ai', 'gemini-2.5-flash'],
      ['ollama.chat', 'llama3.2'],
      ['openrouter.chat', 'openai/gpt-5-mini'],
    ]);
  });

  test('a bare name means the first provider, in order, that lists it; an endpoint that takes any name is never guessed', () => {
    const models = registry();
    expect((models.languageModel('shared-id') as { provider: string }).provider).toBe('openai.responses');
    expect((models.languageModel('claude-sonnet-4-5') as { provider: string }).provider).toBe('anthropic.messages');
    expect(models.languageModel('llama3.2')).toBeUndefined();
  });

  test('names nobody offers are not served', () => {
    const models = registry();
    expect(['openai/gpt-9', 'nobody/x', 'openrouter/anthropic/claude-x', 'anthropic/', '/gpt-5-mini', ''].map((n) => models.languageModel(n))).toStrictEqual(
      Array(6).fill(undefined),
    );
  });

  test('lists the offered names, the catalog’s where none are given; an endpoint that takes any name lists none', () => {
    const names = registry().listModels();
    const anthropic = catalogModels('anthropic').map((m) => `anthropic/${m.id}`);
    expect(names).toStrictEqual(['openai/gpt-5-mini', 'openai/shared-id', ...anthropic, 'google/gemini-2.5-flash', 'google/shared-id', 'openrouter/openai/gpt-5-mini']);
  });

  test('says what the catalog knows of a model, under its provider’s name', () => {
    const models = registry();
    expect(models.modelInfo!('claude-sonnet-4-5-20250929')).toBeUndefined();
    expect(models.modelInfo!('anthropic/claude-sonnet-4-5')).toStrictEqual({
      name: 'anthropic/claude-sonnet-4-5',
      provider: 'anthropic',
      context_window: 200_000,
      price: catalogEntry('anthropic', 'claude-sonnet-4-5')!.price,
    });
    // OpenRouter is a provider the catalog knows: its prices count.
    expect(models.modelInfo!('openrouter/openai/gpt-5-mini')).toMatchObject({ provider: 'openrouter', price: { input_per_mtok: 0.25, output_per_mtok: 2 } });
    expect(models.modelInfo!('ollama/llama3.2')).toStrictEqual({ name: 'ollama/llama3.2', provider: 'ollama' });
    expect(models.modelInfo!('gpt-9')).toBeUndefined();
  });

  test('OpenAI’s Chat Completions when asked; bad names and duplicates refused at creation', () => {
    expect((modelRegistry([openAIProvider({ apiKey: 'k', api: 'chat', models: ['x'] })]).languageModel('openai/x') as { provider: string }).provider).toBe('openai.chat');
    expect(() => compatibleProvider('My Gateway', { baseURL: 'http://x/v1' })).toThrow('"My Gateway" is not a provider name');
    expect(() => compatibleProvider('gw', { baseURL: '' })).toThrow('"gw" needs a baseURL');
    expect(() => modelRegistry([compatibleProvider('openai', { baseURL: 'http://x/v1' }), openAIProvider({ apiKey: 'k' })])).toThrow('two providers have the same name');
  });
});

describe('catalogModels', () => {
  test('chat models only: no embeddings, speech, images or transcription; Google’s list holds Gemini and Gemma', () => {
    const openai = catalogModels('openai').map((m) => m.id);
    expect(openai).toContain('gpt-5-mini');
    expect(openai.filter((id) => /embedding|tts|whisper|dall-e|transcribe|image/.test(id))).toStrictEqual([]);
    expect(catalogModels('google').every((m) => /^(gemini|gemma)/.test(m.id))).toBe(true);
    expect(catalogModels('no-such-provider')).toStrictEqual([]);
  });
});
