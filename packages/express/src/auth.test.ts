import { describe, expect, test } from 'vitest';
import { staticKeys } from './auth.js';

describe('staticKeys', () => {
  const resolve = staticKeys([
    { account: 'alpha', key: 'alpha-key-0123456789' },
    { account: 'beta', key: 'beta-key-0123456789' },
  ]);

  test('a listed key names its account; anything else is null', async () => {
    expect(await resolve('alpha-key-0123456789')).toStrictEqual({ accountId: 'alpha' });
    expect(await resolve('beta-key-0123456789')).toStrictEqual({ accountId: 'beta' });
    for (const key of ['', 'alpha-key-012345678', 'alpha-key-0123456789 ', 'ALPHA-KEY-0123456789']) expect(await resolve(key)).toBeNull();
  });

  test.each([
    [[], 'staticKeys: give at least one { account, key } entry'],
    [[{ account: ' ', key: 'k' }], 'staticKeys: every entry needs a non-blank account'],
    [[{ account: 'a', key: '' }], 'staticKeys: the key of account "a" is blank'],
    [[{ account: 'a', key: 'same' }, { account: 'b', key: 'same' }], 'staticKeys: a key is listed twice (account "b")'],
  ])('%j is refused at creation', (entries, message) => {
    expect(() => staticKeys(entries)).toThrow(new TypeError(message));
  });
});
