import fc from 'fast-check';
import { expect, test } from 'vitest';
import { jsonLength } from './json-length.js';

test('equals the length of JSON.stringify for any JSON value', () => {
  fc.assert(
    fc.property(fc.jsonValue(), (value) => {
      expect(jsonLength(value)).toBe(JSON.stringify(value).length);
    }),
    { seed: 20261124, numRuns: 2_000 },
  );
});

test('stops as soon as the length passes the bound', () => {
  const wide = { list: Array.from({ length: 10 }, () => 'x'.repeat(300)) };
  expect(jsonLength(wide, 1_000)).toBeLessThan(1_400);
  expect(jsonLength(wide)).toBe(JSON.stringify(wide).length);
  const huge = Array.from({ length: 1_000_000 }, () => ({ a: 1 }));
  expect(jsonLength(huge, 1_000)).toBeGreaterThan(1_000);
});
