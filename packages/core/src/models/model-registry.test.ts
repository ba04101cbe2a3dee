import { describe, expect, test } from 'vitest';
import { describeModels, offeredModelsText } from '../discovery.js';
import { catalogEntry, catalogModels, catalogProvider } from './catalog.js';
import { estimatedCost } from './cost.js';
import { modelRegistry } from './model-registry.js';
import { anthropicProvider, compatibleProvider, googleProvider, openAIProvider } from './providers.js';

const registry = () =>
  modelRegistry([
    openAIProvider({ apiKey: 'k', models: ['gpt-5-mini', 'shared-id'] }),
    anthropicProvider({ apiKey: 'k' }),
    googleProvider({ apiKey: 'k', models: ['gemini-2.5-flash', 'shared-id'] }),
    compatibleProvider('ollama', { baseURL: 'http://127.0.0.1:11434/v1' }),
    compatibleProvider('openrouter', {
      baseURL: 'https://openrouter.ai/api/v1',
      apiKey: 'k',
      models: ['openai/gpt-5-mini', 'anthropic/claude-sonnet-4-5'],
    }),
  ]);
const served = (models: ReturnType<typeof registry>, name: string) => {
  const model = models.languageModel(name) as { provider: string; modelId: string } | undefined;
  return model && [model.provider, model.modelId];
};

describe('modelRegistry', () => {
  test('serves provider/model names through each provider package', () => {
    const models = registry();
    expect(
      [
        'openai/gpt-5-mini',
        'anthropic/claude-sonnet-4-5',
        'google/gemini-2.5-flash',
        'ollama/llama3.2',
        'openrouter/openai/gpt-5-mini',
      ].map((n) => served(models, n)),
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
    expect([
      served(models, 'shared-id'),
      served(models, 'claude-sonnet-4-5'),
      served(models, 'llama3.2'),
    ]).toStrictEqual([['openai.responses', 'shared-id'], ['anthropic.messages', 'claude-sonnet-4-5'], undefined]);
  });

  test('a provider/model name goes to that provider or nowhere, even when another lists the whole name as an id', () => {
    const openaiOnly = modelRegistry([
      openAIProvider({ apiKey: 'k', models: ['gpt-4o'] }),
      compatibleProvider('openrouter', {
        baseURL: 'https://openrouter.ai/api/v1',
        models: ['openai/gpt-5-mini', 'anthropic/claude-sonnet-4-5'],
      }),
    ]);
    expect([served(openaiOnly, 'openai/gpt-5-mini'), served(openaiOnly, 'anthropic/claude-sonnet-4-5')]).toStrictEqual([
      undefined,
      undefined,
    ]);
    expect(served(openaiOnly, 'openrouter/anthropic/claude-sonnet-4-5')).toStrictEqual([
      'openrouter.chat',
      'anthropic/claude-sonnet-4-5',
    ]);
  });

  test('names nobody offers are not served', () => {
    const models = registry();
    expect(
      ['openai/gpt-9', 'nobody/x', 'openrouter/anthropic/claude-x', 'anthropic/', '/gpt-5-mini', ''].map((n) =>
        models.languageModel(n),
      ),
    ).toStrictEqual(Array(6).fill(undefined));
  });
});

describe('modelRegistry: listings and what it knows', () => {
  test('lists the offered names, the catalog’s where none are given; endpoints that take any name as provider/*', () => {
    const models = registry();
    const anthropic = catalogModels('anthropic').map((id) => `anthropic/${id}`);
    expect(models.listModels()).toStrictEqual([
      'openai/gpt-5-mini',
      'openai/shared-id',
      ...anthropic,
      'google/gemini-2.5-flash',
      'google/shared-id',
      'openrouter/openai/gpt-5-mini',
      'openrouter/anthropic/claude-sonnet-4-5',
    ]);
    expect(describeModels(models).at(-1)).toStrictEqual({ name: 'ollama/*', provider: 'ollama', input: ['text'] });
    expect(offeredModelsText(models)).toMatch(
      /^openai: gpt-5-mini, shared-id; anthropic: claude-.*; google: gemini-2\.5-flash, shared-id; openrouter: openai\/gpt-5-mini, anthropic\/claude-sonnet-4-5; ollama: any model id$/,
    );
  });

  test('hands each caller its own model info: changing one changes nothing the next run reads', () => {
    const models = registry();
    const info = models.modelInfo!('anthropic/claude-sonnet-4-5')!;
    info.price!.input_per_mtok = 0;
    info.context_window = 1;
    expect(models.modelInfo!('anthropic/claude-sonnet-4-5')).toMatchObject({
      context_window: 200_000,
      price: { input_per_mtok: 3, output_per_mtok: 15 },
    });
  });

  test('says what the catalog knows of a model, under its provider’s name', () => {
    const models = registry();
    expect(models.modelInfo!('anthropic/claude-sonnet-4-5')).toStrictEqual({
      name: 'anthropic/claude-sonnet-4-5',
      provider: 'anthropic',
      context_window: 200_000,
      price: { input_per_mtok: 3, output_per_mtok: 15 },
      input: ['text', 'image', 'file'],
    });
    expect(models.modelInfo!('gpt-5-mini')).toStrictEqual({
      name: 'openai/gpt-5-mini',
      provider: 'openai',
      context_window: 400_000,
      price: { input_per_mtok: 0.25, output_per_mtok: 2 },
      input: ['text', 'image', 'file'],
    });
    // OpenRouter is a provider the catalog knows by that exact name: its prices count.
    expect(models.modelInfo!('openrouter/openai/gpt-5-mini')).toMatchObject({
      provider: 'openrouter',
      price: { input_per_mtok: 0.25, output_per_mtok: 2 },
    });
    expect(models.modelInfo!('ollama/llama3.2')).toStrictEqual({ name: 'ollama/llama3.2', provider: 'ollama' });
    expect(models.modelInfo!('gpt-9')).toBeUndefined();
  });

  test('OpenAI’s Chat Completions when asked; bad names and duplicates refused at creation', () => {
    expect(
      served(modelRegistry([openAIProvider({ apiKey: 'k', api: 'chat', models: ['x'] })]) as never, 'openai/x'),
    ).toStrictEqual(['openai.chat', 'x']);
    expect(() => compatibleProvider('My Gateway', { baseURL: 'http://x/v1' })).toThrow(
      '"My Gateway" is not a provider name',
    );
    expect(() => compatibleProvider('gw', { baseURL: '' })).toThrow('"gw" needs a baseURL');
    expect(() =>
      modelRegistry([compatibleProvider('openai', { baseURL: 'http://x/v1' }), openAIProvider({ apiKey: 'k' })]),
    ).toThrow('two providers are named "openai"');
    const fake = openAIProvider({ apiKey: 'k' }).provider;
    expect(() => modelRegistry([{ name: 'a/b', provider: fake, models: ['x'] }])).toThrow(
      '"a/b" is not a provider name',
    );
    expect(() => modelRegistry([{ name: 'agenthost', provider: fake, models: ['x'] }])).toThrow(
      '"agenthost" is not a provider name',
    );
    expect(() => modelRegistry([{ name: 'gw', provider: fake, models: [''] }])).toThrow('"gw" lists an empty model id');
  });
});

describe('the catalog', () => {
  test('offers chat models the provider serves today: no embeddings, speech, images, live or retired families', () => {
    const openai = catalogModels('openai');
    // The models offered before the catalog, by hand, are all still offered.
    for (const id of [
      'gpt-5.5',
      'gpt-5.4',
      'gpt-5.4-mini',
      'gpt-5.4-nano',
      'gpt-5',
      'gpt-5-mini',
      'gpt-5-nano',
      'gpt-4.1',
      'gpt-4.1-mini',
      'gpt-4.1-nano',
      'gpt-4o',
      'gpt-4o-mini',
      'o4-mini',
      'o3',
    ]) {
      expect(openai).toContain(id);
    }
    expect(
      openai.filter((id) => /embedding|tts|whisper|dall-e|transcribe|image|^gpt-3\.5|gpt-oss|ft:|-vision/.test(id)),
    ).toStrictEqual([]);
    expect(catalogModels('anthropic').filter((id) => /^claude-(2|v1|3-sonnet|3-haiku)/.test(id))).toStrictEqual([]);
    expect(
      catalogModels('google').filter((id) => !/^(gemini|gemma)/.test(id) || /live|maas|^gemini-(pro|1\.)/.test(id)),
    ).toStrictEqual([]);
    expect(catalogModels('no-such-provider')).toStrictEqual([]);
  });

  test('a provider is the catalog’s only by its exact name', () => {
    expect([
      catalogProvider('openrouter'),
      catalogProvider('my-openai'),
      catalogProvider('gemini'),
      catalogProvider('anthropic-eu'),
    ]).toStrictEqual(['openrouter', undefined, undefined, undefined]);
    expect(compatibleProvider('my-openai', { baseURL: 'http://127.0.0.1:8000/v1' }).catalog).toBeUndefined();
  });

  test('prices are the ones in force at the time asked', () => {
    // This model's price doubles on 2027-01-01 in the catalog.
    expect(catalogEntry('google', 'gemini-3.6-flash', new Date('2026-11-24T12:00:00Z'))?.price).toStrictEqual({
      input_per_mtok: 0.75,
      output_per_mtok: 3.75,
    });
    expect(catalogEntry('google', 'gemini-3.6-flash', new Date('2027-02-01T12:00:00Z'))?.price).toStrictEqual({
      input_per_mtok: 1.5,
      output_per_mtok: 7.5,
    });
  });
});

describe('estimatedCost', () => {
  test('tokens at the list price, in US dollars to the billionth; none without a price', () => {
    expect(
      estimatedCost({ price: { input_per_mtok: 0.25, output_per_mtok: 2 } }, { prompt: 1000, completion: 500 }),
    ).toBe(0.00125);
    expect(estimatedCost({ price: { input_per_mtok: 3, output_per_mtok: 15 } }, { prompt: 7, completion: 3 })).toBe(
      0.000066,
    );
    expect(estimatedCost({ price: { input_per_mtok: 0.1, output_per_mtok: 0.2 } }, { prompt: 1, completion: 1 })).toBe(
      0.0000003,
    );
    expect(estimatedCost({}, { prompt: 1000, completion: 500 })).toBeUndefined();
    expect(estimatedCost(undefined, { prompt: 1, completion: 1 })).toBeUndefined();
  });
});
