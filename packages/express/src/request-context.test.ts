import { expect, test } from 'vitest';
import { requestIdOf } from './request-context.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

test('a safe id a middleware in front gave the request wins over the header', () => {
  expect(requestIdOf({ id: 'from-front.1', headers: { 'x-request-id': 'from-client' } })).toBe('from-front.1');
});

test("an unsafe or missing req.id falls back to the client's safe x-request-id", () => {
  for (const id of [undefined, 'not safe!', 42, 'x'.repeat(129)])
    expect(requestIdOf({ id, headers: { 'x-request-id': 'from-client:2' } })).toBe('from-client:2');
});

test('with neither safe, a new UUID, different each time', () => {
  const headers = { 'x-request-id': 'bad id\n' };
  const [a, b] = [requestIdOf({ id: '', headers }), requestIdOf({ headers })];
  expect([UUID.test(a), UUID.test(b), a === b]).toStrictEqual([true, true, false]);
});
