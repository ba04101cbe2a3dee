import { Buffer } from 'node:buffer';
import { defaultDeserialize, defaultSerialize } from '@keyv/serialize';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { deserializeKeyv } from './keyv-deserialize.js';

// Values as Keyv stores them ({ value, expires }): records with strings that start with `:` or look
// escaped, Buffers, and text that merely contains `":` inside a string.
const text = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.constantFrom(':', '::', ':base64:', ':base64:aGk=', '\\u003a', '", ":', '[":x"]', ',":', 'a":b'),
  fc.string({ maxLength: 8 }).map((s) => `:${s}`),
);
const leaf = fc.oneof(
  text,
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.uint8Array({ maxLength: 8 }).map((a) => Buffer.from(a)),
);
const value = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: 'small' },
    leaf,
    fc.array(tie('node'), { maxLength: 4 }),
    fc.dictionary(text, tie('node'), { maxKeys: 4 }),
  ),
})).node;

describe('deserializeKeyv', () => {
  test("reads what Keyv's default serializer wrote exactly as its default deserializer does", () => {
    fc.assert(
      fc.property(value, fc.option(fc.integer({ min: 0 })), (v, expires) => {
        const written = defaultSerialize({ value: v, expires });
        expect(deserializeKeyv(written)).toStrictEqual(defaultDeserialize(written));
      }),
      { seed: 20261124, numRuns: 2_000 },
    );
  });

  test('escaped strings and Buffers anywhere in a record round-trip; escapes by another writer are read too', () => {
    const record = {
      value: { a: ':x', list: ['::y', Buffer.from('hi')], plain: 'p', nested: { k: ':' } },
      expires: null,
    };
    // Written escaped (`::x`, `:base64:aGk=`), read back as they were.
    expect(deserializeKeyv(defaultSerialize(record))).toStrictEqual(record);
    expect(deserializeKeyv('":top"')).toBe('top');
    expect([deserializeKeyv('["\\u003Ax"]'), deserializeKeyv('["\\u003ay"]')]).toStrictEqual([['x'], ['y']]);
    expect(deserializeKeyv('{"v":\t\r\n":x","w":[ \n":y"]}')).toStrictEqual({ v: 'x', w: ['y'] });
    expect(deserializeKeyv('{ "value" : [ "\\u003ax" ] }')).toStrictEqual({ value: ['x'] });
    expect(deserializeKeyv('{"value":{"text":"a \\":b\\" c"}}')).toStrictEqual({ value: { text: 'a ":b" c' } });
  });
});
