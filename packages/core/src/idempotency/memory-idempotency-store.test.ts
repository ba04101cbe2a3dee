import { describe, expect, test } from 'vitest';
import type { IdempotencyRecord } from '../ports/idempotency-store.js';
import { memoryIdempotencyStore } from './memory-idempotency-store.js';

const done = (n: number): IdempotencyRecord => ({
  fingerprint: `f${n}`,
  state: 'done',
  response: { status: 200, body: { n } },
  created_at: '2026-11-24T00:00:00.000Z',
});
const claim = (n: number): IdempotencyRecord => ({
  fingerprint: `f${n}`,
  state: 'in_flight',
  owner: `o${n}`,
  created_at: '2026-11-24T00:00:00.000Z',
});
const read = (store: ReturnType<typeof memoryIdempotencyStore>, keys: string[]) =>
  Promise.all(keys.map((k) => store.getIdempotency(k)));

describe('memoryIdempotencyStore', () => {
  test('keeps at most maxEntries responses, forgetting the oldest written first', async () => {
    const store = memoryIdempotencyStore({ maxEntries: 3 });
    for (let n = 1; n <= 4; n++) await store.putIdempotency(`k${n}`, done(n), 60_000);
    await store.putIdempotency('k2', done(22), 60_000); // written again: now the newest
    await store.putIdempotency('k5', done(5), 60_000);
    expect(await read(store, ['k1', 'k2', 'k3', 'k4', 'k5'])).toStrictEqual([
      undefined,
      done(22),
      undefined,
      done(4),
      done(5),
    ]);
  });

  test("one partition's flood pushes out only its own responses, and never a claim in flight", async () => {
    const store = memoryIdempotencyStore({
      maxEntries: 100,
      maxPerPartition: 3,
      partition: (key) => key.split(':')[0]!,
    });
    await store.putIdempotency('b:1', done(1), 60_000);
    await store.putIdempotency('a:running', claim(0), 60_000);
    for (let n = 1; n <= 50; n++) await store.putIdempotency(`a:${n}`, done(n), 60_000);
    expect(await read(store, ['b:1', 'a:running', 'a:47', 'a:48', 'a:49', 'a:50'])).toStrictEqual([
      done(1),
      claim(0),
      undefined,
      done(48),
      done(49),
      done(50),
    ]);
  });

  test('past the bound in all, the largest partition gives up its oldest', async () => {
    const store = memoryIdempotencyStore({
      maxEntries: 4,
      maxPerPartition: 10,
      partition: (key) => key.split(':')[0]!,
    });
    await store.putIdempotency('b:1', done(1), 60_000);
    for (let n = 1; n <= 4; n++) await store.putIdempotency(`a:${n}`, done(n), 60_000);
    expect(await read(store, ['b:1', 'a:1', 'a:2', 'a:3', 'a:4'])).toStrictEqual([
      done(1),
      undefined,
      done(2),
      done(3),
      done(4),
    ]);
  });

  test('records expire after their time and are copies the caller cannot change', async () => {
    const store = memoryIdempotencyStore();
    const mine = done(1);
    await store.putIdempotency('short', mine, 30);
    (mine.response!.body as { n: number }).n = 99;
    expect(await store.getIdempotency('short')).toStrictEqual(done(1));
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(await store.getIdempotency('short')).toBeUndefined();
    expect(() => memoryIdempotencyStore({ maxEntries: 0 })).toThrow('maxEntries must be a positive integer');
  });
});
