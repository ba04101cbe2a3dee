import { expect, test } from 'vitest';
import { converse } from './conversation.js';

test('the in-process example holds a conversation', async () => {
  expect(await converse()).toStrictEqual(['Echo: My order has not arrived.', 'Echo: It was order 1042.']);
});
