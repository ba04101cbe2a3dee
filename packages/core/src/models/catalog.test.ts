import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';

/** A fresh catalog module: each test starts with nothing looked up. */
const fresh = async () => {
  vi.resetModules();
  return import('./catalog.js');
};

beforeEach(() => {
  vi.useFakeTimers({ now: new Date('2026-06-01T12:00:10Z'), toFake: ['Date'] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('currentCatalogEntry', () => {
  test('is the catalog entry now, the same object for the rest of the minute, looked up again in the next', async () => {
    const { catalogEntry, currentCatalogEntry } = await fresh();
    const first = currentCatalogEntry('anthropic', 'claude-sonnet-4-5');
    expect(first).toStrictEqual({
      id: 'claude-sonnet-4-5',
      context_window: 200_000,
      price: { input_per_mtok: 3, output_per_mtok: 15 },
    });
    expect(first).toStrictEqual(catalogEntry('anthropic', 'claude-sonnet-4-5', new Date()));
    vi.setSystemTime(new Date('2026-06-01T12:00:59.999Z'));
    expect(currentCatalogEntry('anthropic', 'claude-sonnet-4-5')).toBe(first);
    vi.setSystemTime(new Date('2026-06-01T12:01:00Z'));
    const next = currentCatalogEntry('anthropic', 'claude-sonnet-4-5');
    expect(next).not.toBe(first);
    expect(next).toStrictEqual(first);
  });

  test('looks up again when the clock is set back', async () => {
    const { currentCatalogEntry } = await fresh();
    const first = currentCatalogEntry('openai', 'gpt-5-mini');
    vi.setSystemTime(new Date('2026-06-01T11:00:10Z'));
    expect(currentCatalogEntry('openai', 'gpt-5-mini')).not.toBe(first);
  });

  test('keeps an unknown model as unknown, and keys by provider and model apart', async () => {
    const { currentCatalogEntry } = await fresh();
    expect(currentCatalogEntry('openai', 'no-such-model-x')).toBeUndefined();
    expect(currentCatalogEntry('openai', 'gpt-5-mini')?.id).toBe('gpt-5-mini');
    expect(currentCatalogEntry('anthropic', 'gpt-5-mini')).toBeUndefined();
  });

  test('hands out entries no caller can change', async () => {
    const { currentCatalogEntry } = await fresh();
    const entry = currentCatalogEntry('openai', 'gpt-5-mini');
    expect(Object.isFrozen(entry)).toBe(true);
    expect(Object.isFrozen(entry?.price)).toBe(true);
  });

  test('keeps at most 1,000 entries: a stream of made-up ids pushes the kept ones out', async () => {
    const { currentCatalogEntry } = await fresh();
    const kept = currentCatalogEntry('openai', 'gpt-5-mini');
    for (let i = 0; i < 998; i++) currentCatalogEntry('openrouter', `made-up/model-${i}`);
    expect(currentCatalogEntry('openai', 'gpt-5-mini')).toBe(kept);
    currentCatalogEntry('openrouter', 'made-up/one-more');
    currentCatalogEntry('openrouter', 'made-up/and-one-more');
    expect(currentCatalogEntry('openai', 'gpt-5-mini')).not.toBe(kept);
  });
});
