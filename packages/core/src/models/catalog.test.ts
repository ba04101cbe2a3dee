import { afterEach, describe, expect, test, vi } from 'vitest';
import { catalogEntry, currentCatalogEntry } from './catalog.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('currentCatalogEntry', () => {
  test('is the catalog entry now, the same object again within a minute, looked up again after it', () => {
    vi.useFakeTimers({ now: new Date('2026-06-01T12:00:00Z'), toFake: ['Date'] });
    const first = currentCatalogEntry('anthropic', 'claude-sonnet-4-5');
    expect(first).toStrictEqual(catalogEntry('anthropic', 'claude-sonnet-4-5', new Date()));
    expect(first).toStrictEqual({
      id: 'claude-sonnet-4-5',
      context_window: 200_000,
      price: { input_per_mtok: 3, output_per_mtok: 15 },
    });
    vi.setSystemTime(new Date('2026-06-01T12:00:59Z'));
    expect(currentCatalogEntry('anthropic', 'claude-sonnet-4-5')).toBe(first);
    vi.setSystemTime(new Date('2026-06-01T12:01:01Z'));
    const later = currentCatalogEntry('anthropic', 'claude-sonnet-4-5');
    expect(later).not.toBe(first);
    expect(later).toStrictEqual(first);
  });

  test('keeps an unknown model as unknown, and keys by provider and model apart', () => {
    expect(currentCatalogEntry('openai', 'no-such-model-x')).toBeUndefined();
    expect(currentCatalogEntry('openai', 'gpt-5-mini')?.id).toBe('gpt-5-mini');
    expect(currentCatalogEntry('anthropic', 'gpt-5-mini')).toBeUndefined();
  });

  test('hands out entries no caller can change', () => {
    const entry = currentCatalogEntry('openai', 'gpt-5-mini');
    expect(Object.isFrozen(entry)).toBe(true);
    expect(Object.isFrozen(entry?.price)).toBe(true);
  });
});
