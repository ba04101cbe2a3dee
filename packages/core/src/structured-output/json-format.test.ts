import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { answerDemand } from './answer-demand.js';
import { readJsonFormat } from './json-format.js';

const refusal = (jsonFormat: unknown, maxOutputTokens = 4096) => {
  try {
    readJsonFormat(jsonFormat, maxOutputTokens);
  } catch (error) {
    return (error as { details?: { json_format?: { message: string } } }).details?.json_format?.message;
  }
  return undefined;
};

describe('readJsonFormat', () => {
  test('reads an object or its JSON text into the same schema and text', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    expect(readJsonFormat(schema, 100)).toStrictEqual({ schema, text: JSON.stringify(schema) });
    expect(readJsonFormat(JSON.stringify(schema), 100)).toStrictEqual({ schema, text: JSON.stringify(schema) });
  });

  test.each([
    [
      '101 patterns',
      { anyOf: Array.from({ length: 101 }, (_, i) => ({ type: 'string', maxLength: 5, pattern: `^${i}$` })) },
      'json_format has 101 patterns; at most 100 are allowed',
    ],
    [
      'patternProperties keys count as patterns',
      { patternProperties: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`^p${i}$`, {}])) },
      'json_format has 101 patterns; at most 100 are allowed',
    ],
    [
      'a pattern of 1 001 characters',
      { type: 'string', maxLength: 5, pattern: 'a'.repeat(1001) },
      'json_format has a pattern over 1000 characters',
    ],
    [
      'JSON text nested 5 000 levels deep',
      `${'['.repeat(5000)}${']'.repeat(5000)}`,
      'json_format must be a JSON Schema object',
    ],
    [
      'an object nested 33 levels deep',
      JSON.parse(`${'{"not":'.repeat(33)}{}${'}'.repeat(33)}`),
      'json_format is nested more than 32 levels deep',
    ],
    ['text over 32 768 characters', ' '.repeat(32_769), 'json_format must be at most 32768 characters'],
  ])('refuses %s', (_, jsonFormat, message) => {
    expect(refusal(jsonFormat)).toBe(message);
  });

  test('the bound on what a schema demands follows the output limit', () => {
    const schema = { type: 'array', items: { type: 'string' }, minItems: 200 };
    expect(refusal(schema, 100)).toBe(
      'json_format asks for an answer longer than a run can produce (its smallest valid answer is over 400 characters: 4 per token of the 100-token output limit)',
    );
    expect(refusal(schema, 200)).toBeUndefined();
  });
});

describe('answerDemand', () => {
  test.each([
    ['a string', { type: 'string', minLength: 10 }, 12],
    ['required properties', { type: 'object', properties: { ab: { type: 'string' } }, required: ['ab'] }, 9],
    [
      'optional properties cost nothing',
      { type: 'object', properties: { ab: { type: 'string', minLength: 1000 } } },
      2,
    ],
    [
      'nested arrays multiply',
      { type: 'array', minItems: 3, items: { type: 'array', minItems: 2, items: { type: 'null' } } },
      2 + 2 + 3 * (2 + 1 + 2 * 4),
    ],
    ['the cheapest branch of anyOf', { anyOf: [{ type: 'string', minLength: 50 }, { type: 'null' }] }, 4],
    ['the dearest part of allOf', { allOf: [{ type: 'string', minLength: 50 }, { type: 'string' }] }, 52],
    ['a local $ref', { $ref: '#/$defs/s', $defs: { s: { type: 'string', minLength: 7 } } }, 9],
    ['a $ref back to itself', { type: 'object', properties: { a: { $ref: '#' } } }, 2],
    ['a required property that is false', { type: 'object', properties: { a: false }, required: ['a'] }, 101],
    ['a $ref that is not a valid pointer', { $ref: '#/%' }, 1],
  ])('%s', (_, schema, expected) => {
    expect(answerDemand(schema, 100)).toBe(Math.min(expected, 101));
  });

  test('stops counting past the cap, whatever the schema multiplies to', () => {
    let schema: unknown = { type: 'string', minLength: 1_000_000 };
    for (let i = 0; i < 30; i++) schema = { type: 'array', minItems: 1_000_000, items: schema };
    expect(answerDemand(schema, 16_384)).toBe(16_385);
  });

  // Property: the demand is a lower bound. Schemas are generated together with one value they accept
  // (not always the shortest); the demand never exceeds that value's JSON length.
  type WithValue = { schema: Record<string, unknown>; value: unknown };
  const withValue: fc.Memo<WithValue> = fc.memo(
    (n): fc.Arbitrary<WithValue> =>
      n <= 1
        ? fc.oneof<fc.Arbitrary<WithValue>[]>(
            fc.string({ maxLength: 8 }).map((s) => ({ schema: { type: 'string', minLength: s.length }, value: s })),
            fc.integer().map((i) => ({ schema: { type: 'integer' }, value: i })),
            fc.constant({ schema: { type: 'null' }, value: null }),
            fc.jsonValue({ maxDepth: 2 }).map((v) => ({ schema: { const: v }, value: v })),
          )
        : fc.oneof<fc.Arbitrary<WithValue>[]>(
            fc.array(withValue(n - 1), { minLength: 1, maxLength: 4 }).map((items) => ({
              schema: { type: 'array', minItems: items.length, items: { anyOf: items.map((i) => i.schema) } },
              value: items.map((i) => i.value),
            })),
            fc.dictionary(fc.string({ maxLength: 5 }), withValue(n - 1), { minKeys: 1, maxKeys: 4 }).map((props) => ({
              schema: {
                type: 'object',
                properties: Object.fromEntries(Object.entries(props).map(([k, v]) => [k, v.schema])),
                required: Object.keys(props),
              },
              value: Object.fromEntries(Object.entries(props).map(([k, v]) => [k, v.value])),
            })),
            fc
              .tuple(withValue(n - 1), withValue(n - 1))
              .map(([a, b]) => ({ schema: { anyOf: [a.schema, b.schema] }, value: a.value })),
          ),
  );

  test('never exceeds the length of a value the schema accepts', () => {
    fc.assert(
      fc.property(withValue(4), ({ schema, value }) => {
        expect(answerDemand(schema, 1_000_000)).toBeLessThanOrEqual(JSON.stringify(value).length);
      }),
      { seed: 20261124, numRuns: 500 },
    );
  });
});
