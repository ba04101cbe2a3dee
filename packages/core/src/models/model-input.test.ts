import { describe, expect, test } from 'vitest';
import { mockModels } from '../testing/mock-models.js';
import { modelRegistry } from './model-registry.js';
import { anthropicProvider, compatibleProvider, googleProvider, openAIProvider } from './providers.js';
import { echoModels } from './static-models.js';

describe('what models read (ModelInfo.input)', () => {
  test('OpenAI, Anthropic and Google models read text, images and files', () => {
    const registry = modelRegistry([
      openAIProvider({ apiKey: 'k', models: ['gpt-5-mini'] }),
      anthropicProvider({ apiKey: 'k', models: ['claude-sonnet-4-5'] }),
      googleProvider({ apiKey: 'k', models: ['gemini-2.5-flash'] }),
    ]);
    for (const name of ['openai/gpt-5-mini', 'anthropic/claude-sonnet-4-5', 'google/gemini-2.5-flash'])
      expect(registry.modelInfo?.(name)?.input).toStrictEqual(['text', 'image', 'file']);
  });

  test('an OpenAI-compatible endpoint reads text only unless configured; a built-in can be narrowed', () => {
    const registry = modelRegistry([
      compatibleProvider('ollama', { baseURL: 'http://127.0.0.1:1/v1' }),
      compatibleProvider('vllm', { baseURL: 'http://127.0.0.1:2/v1', input: ['text', 'image'] }),
      openAIProvider({ apiKey: 'k', models: ['gpt-5-mini'], input: ['text'] }),
    ]);
    expect(registry.modelInfo?.('ollama/llama3.2')?.input).toBeUndefined();
    expect(registry.modelInfo?.('vllm/qwen')?.input).toStrictEqual(['text', 'image']);
    expect(registry.modelInfo?.('openai/gpt-5-mini')?.input).toStrictEqual(['text']);
  });

  test('a built-in provider at another base URL (a self-hosted server that would fetch image URLs) reads text unless configured', () => {
    const registry = modelRegistry([
      openAIProvider({ apiKey: 'k', models: ['gpt-5-mini'], baseURL: 'http://127.0.0.1:3/v1' }),
      anthropicProvider({
        apiKey: 'k',
        models: ['claude-sonnet-4-5'],
        baseURL: 'http://127.0.0.1:4/v1',
        input: ['text', 'image'],
      }),
    ]);
    expect(registry.modelInfo?.('openai/gpt-5-mini')?.input).toStrictEqual(['text']);
    expect(registry.modelInfo?.('anthropic/claude-sonnet-4-5')?.input).toStrictEqual(['text', 'image']);
  });

  test('echo reads text only; mock models as their options say', () => {
    expect(echoModels().modelInfo?.('echo')?.input).toBeUndefined();
    const models = mockModels({ vision: 'ok', plain: 'ok' }, { input: { vision: ['text', 'image'] } });
    expect(models.modelInfo?.('vision')).toStrictEqual({
      name: 'vision',
      provider: 'custom',
      input: ['text', 'image'],
    });
    expect(models.modelInfo?.('plain')).toBeUndefined();
  });
});
