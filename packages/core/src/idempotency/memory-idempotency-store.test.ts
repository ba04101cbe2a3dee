import { describe, expect, test } from 'vitest';
import { memoryIdempotencyStore } from './memory-idempotency-store.js';

const record = (n: number) => ({ fingerprint: `f${n}`, state: 'done' as const, response: { status: 200, body: { n } }, created_at: '2026-11-24T00:00:00.000Z' });

describe('memoryIdempotencyStore', () => {
  test('keeps at most maxEntries records, forgetting the oldest written first', async () => {
    const store = memoryIdempotencyStore({ maxEntries: 3 });
    for (let n = 1; n <= 4; n++) await store.putIdempotency(`k${n}`, record(n), 60_000);
    await store.putIdempotency('k2', record(22), 60_000); // written again: now the newest
    await store.putIdempotency('k5', record(5), 60_000);
    const kept = await Promise.all(['k1', 'k2', 'k3', 'k4', 'k5'].map((k) => store.getIdempotency(k)));
    expect(kept).toStrictEqual([undefined, record(22), undefined, record(4), record(5)]);
  });

  test('records expire after their time and are copies the caller cannot change', async () => {
    const store = memoryIdempotencyStore();
    const mine = record(1);
    await store.putIdempotency('short', mine, 30);
    mine.response.body.n = 99;
    expect(await store.getIdempotency('short')).toStrictEqual(record(1));
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(await store.getIdempotency('short')).toBeUndefined();
    expect(() => memoryIdempotencyStore({ maxEntries: 0 })).toThrow('maxEntries must be a positive integer');
  });
});
