import { AgentHostError } from '@agenthost/core';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { metadataQuery } from './metadata-query.js';

const SEED = 20261124;

/** The error a query gets, or the filter. */
function outcome(query: Record<string, unknown>) {
  try {
    return { filter: metadataQuery(query) };
  } catch (error) {
    if (!AgentHostError.isInstance(error)) throw error;
    return { code: error.code, fields: Object.keys(error.details ?? {}) };
  }
}

describe('metadataQuery', () => {
  test('reads metadata[<key>] keys, or a parsed metadata object; nothing else', () => {
    expect(metadataQuery({})).toBeUndefined();
    expect(metadataQuery({ limit: '2', order: 'asc' })).toBeUndefined();
    expect(metadataQuery({ 'metadata[team]': 'support', 'metadata[tier]': 'gold', limit: '2' })).toStrictEqual({
      team: 'support',
      tier: 'gold',
    });
    expect(metadataQuery({ metadata: { team: 'support' } })).toStrictEqual({ team: 'support' });
    // Keys are the service's to check: any text between the brackets is passed on.
    expect(metadataQuery({ 'metadata[bad key]': 'x' })).toStrictEqual({ 'bad key': 'x' });
  });

  test.each([
    [{ 'metadata[team]': ['a', 'b'] }],
    [{ 'metadata[team]': 'a', metadata: { team: 'b' } }],
    [{ metadata: 'x' }],
    [{ 'metadata[a][b]': 'x' }],
    [{ metadatax: 'x' }],
    [{ metadata: { team: { nested: 'x' } } }],
    [Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`metadata[k${i}]`, 'v']))],
  ])('refuses %j with a 400 naming metadata', (query) => {
    expect(outcome(query)).toStrictEqual({ code: 'invalid_input', fields: ['metadata'] });
  });

  test('any query: either a filter of exactly its metadata pairs, or a 400 naming metadata; never anything else', () => {
    const value = fc.oneof(fc.string({ maxLength: 8 }), fc.array(fc.string({ maxLength: 4 }), { maxLength: 3 }));
    const name = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.string({ maxLength: 8 }).map((k) => `metadata[${k}]`),
      fc.constantFrom('metadata', 'metadata[', 'metadata[]', '__proto__', 'constructor', 'metadata[__proto__]'),
    );
    fc.assert(
      fc.property(fc.dictionary(name, value, { maxKeys: 20 }), (query) => {
        const result = outcome(query);
        const pairs = Object.entries(query).filter(([k]) => /^metadata\[[^[\]]*\]$/.test(k));
        const others = Object.keys(query).filter((k) => k.startsWith('metadata') && !/^metadata\[[^[\]]*\]$/.test(k));
        if (others.length > 0 || pairs.length > 16 || pairs.some(([, v]) => typeof v !== 'string')) {
          expect(result).toStrictEqual({ code: 'invalid_input', fields: ['metadata'] });
        } else {
          const expected = pairs.length ? Object.fromEntries(pairs.map(([k, v]) => [k.slice(9, -1), v])) : undefined;
          expect(result).toStrictEqual({ filter: expected });
          expect(Object.getPrototypeOf(result.filter ?? {})).toBe(Object.prototype);
        }
      }),
      { seed: SEED, numRuns: 500 },
    );
  });
});
