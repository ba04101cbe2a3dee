import { describe, expect, test } from 'vitest';
import { openStore } from './open-store.js';

describe('openStore', () => {
  test.each([
    ['nonsense', '"nonsense" is not a store location; use one of: memory, sqlite://<path>'],
    ['mysql://127.0.0.1/db', 'unsupported store "mysql://"; use one of: memory'],
    ['sqlite://', 'sqlite:// needs a file path, e.g. sqlite://./.agenthost/agenthost.sqlite'],
  ])('%s is refused with a message naming the supported forms', async (location, message) => {
    await expect(openStore(location)).rejects.toThrow(message);
  });

  test('memory opens a memory store with in-process locks', async () => {
    const opened = await openStore('memory');
    expect([opened.kind, opened.description]).toStrictEqual(['memory', 'memory']);
  });

  test.each([
    ['redis://:hunter2@127.0.0.1:1/0', 'cannot reach the store at redis://:***@127.0.0.1:1/0'],
    [
      'postgres://postgres:hunter2@127.0.0.1:1/test',
      'cannot reach the store at postgres://postgres:***@127.0.0.1:1/test',
    ],
  ])('an unreachable %s fails fast, with the password hidden', async (location, message) => {
    const started = Date.now();
    const error = (await openStore(location, { connectTimeoutMs: 300 }).catch((e: unknown) => e)) as Error;
    expect(error.message).toContain(message);
    expect(error.message).not.toContain('hunter2');
    expect(Date.now() - started).toBeLessThan(3000);
  });
});
