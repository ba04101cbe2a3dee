import { describe, expect, test } from 'vitest';
import { AgentHostError } from './agenthost-error.js';
import { InvalidInputError } from './invalid-input-error.js';
import { NotFoundError } from './not-found-error.js';
import { ProviderError } from './provider-error.js';

describe('AgentHostError', () => {
  test('isInstance recognises every subclass and nothing else', () => {
    expect(
      [new NotFoundError(), new InvalidInputError({ details: {} }), new ProviderError()].map(AgentHostError.isInstance),
    ).toStrictEqual([true, true, true]);
    expect(
      [new Error('x'), null, undefined, 'not_found', { code: 'not_found' }].map(AgentHostError.isInstance),
    ).toStrictEqual([false, false, false, false, false]);
  });

  test('isInstance works across copies of the package (a global symbol, not instanceof)', () => {
    const foreign = Object.assign(new Error('from another copy'), {
      [Symbol.for('agenthost.error')]: true,
      code: 'not_found',
    });
    expect(AgentHostError.isInstance(foreign)).toBe(true);
  });

  test('keeps code, details and cause', () => {
    const cause = new Error('root');
    const error = new InvalidInputError({ details: { name: { message: 'name is required', path: ['name'] } }, cause });
    expect([error.name, error.code, error.message, error.details, error.cause]).toStrictEqual([
      'InvalidInputError',
      'invalid_input',
      'Invalid request format',
      { name: { message: 'name is required', path: ['name'] } },
      cause,
    ]);
    expect([new ProviderError({ failure: 'timeout' }).code, new ProviderError().code]).toStrictEqual([
      'provider_timeout',
      'provider_error',
    ]);
  });
});
