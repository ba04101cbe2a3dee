import { AgentHostError } from '@agenthost/core';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { eventCursor } from './event-cursor.js';

// Where a run's events resume is a client-controlled number: only the decimal text of a whole number
// from 0 to 2^53 - 1 is one; everything else is a 400 naming where it came from. Fixed seeds, so a
// failure is reproducible as it is.
const MAX = BigInt(Number.MAX_SAFE_INTEGER);

/** The oracle, by arbitrary-precision arithmetic rather than by floating point. */
const isEventId = (text: string) => /^[0-9]+$/.test(text) && BigInt(text) <= MAX;

/** Texts near the boundaries and the usual tricks, and anything at all. */
const cursorText = fc.oneof(
  fc.string({ maxLength: 24 }),
  fc.stringMatching(/^[0-9]{1,22}$/),
  fc.bigInt({ min: MAX - 1000n, max: MAX + 1000n }).map(String),
  fc.integer({ min: 0, max: 1_000 }).map((n) => `${'0'.repeat(n % 30)}${n}`),
  fc.constantFrom(
    '',
    ' ',
    '-0',
    '+1',
    '1.0',
    '1e3',
    '0x10',
    '0b1',
    '١',
    '1_000',
    'Infinity',
    'NaN',
    ' 1',
    '1 ',
    '\u0000',
  ),
);

function refusal(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return AgentHostError.isInstance(error) ? { code: error.code, details: error.details } : error;
  }
  return 'not refused';
}

const refused = (name: string) => ({
  code: 'invalid_input',
  details: {
    [name]: {
      message: `${name} must be the id of an event: a whole number from 0 to ${Number.MAX_SAFE_INTEGER}`,
      path: [name],
    },
  },
});

describe("eventCursor: where a run's events resume", () => {
  test('any text: the number it writes when it is a whole number from 0 to 2^53 - 1, else a 400 naming its source', () => {
    fc.assert(
      fc.property(cursorText, (text) => {
        const fromHeader = () => eventCursor({ lastEventId: text, query: {} });
        const fromQuery = () => eventCursor({ query: { after: text } });
        if (isEventId(text)) {
          expect([fromHeader(), fromQuery()]).toStrictEqual([Number(BigInt(text)), Number(BigInt(text))]);
        } else {
          expect([refusal(fromHeader), refusal(fromQuery)]).toStrictEqual([refused('Last-Event-ID'), refused('after')]);
        }
      }),
      { seed: 20261124, numRuns: 2_000 },
    );
  });

  test('every safe integer from 0 up reads back as itself', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), (id) => {
        expect(eventCursor({ lastEventId: String(id), query: {} })).toBe(id);
        expect(eventCursor({ query: { after: String(id) } })).toBe(id);
      }),
      { seed: 20261125, numRuns: 1_000 },
    );
  });

  test('the header wins over `after`, whatever `after` is; `after` that is not one string is a 400', () => {
    const afterValue = fc.oneof(
      cursorText,
      fc.array(fc.string(), { maxLength: 3 }),
      fc.dictionary(fc.string(), fc.string()),
    );
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), afterValue, (id, after) => {
        expect(eventCursor({ lastEventId: String(id), query: { after } })).toBe(id);
        if (typeof after !== 'string')
          expect(refusal(() => eventCursor({ query: { after } }))).toStrictEqual(refused('after'));
      }),
      { seed: 20261126, numRuns: 1_000 },
    );
  });

  test('neither given: every event (0)', () => {
    expect(eventCursor({ query: {} })).toBe(0);
    expect(eventCursor({ lastEventId: undefined, query: { limit: '5' } })).toBe(0);
  });
});
