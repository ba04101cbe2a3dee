import { expect, test } from 'vitest';
import { pollDelay } from './poll-delay.js';

test('starts at about 1 ms, doubles up to pollMs, and stays jittered within half either side', () => {
  const bounds = (attempt: number) => {
    const delays = Array.from({ length: 500 }, () => pollDelay(attempt, 25));
    return [Math.min(...delays), Math.max(...delays)] as const;
  };
  for (const [attempt, base] of [
    [0, 1],
    [1, 2],
    [3, 8],
    [4, 16],
    [5, 25],
    [40, 25],
    [10_000, 25],
  ] as const) {
    const [low, high] = bounds(attempt);
    expect(low).toBeGreaterThanOrEqual(base / 2);
    expect(high).toBeLessThan(base * 1.5);
    // Jittered: not one value.
    expect(high - low).toBeGreaterThan(base / 4);
  }
});
