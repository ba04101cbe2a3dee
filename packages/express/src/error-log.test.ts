import { ProviderError, StorageUnavailableError } from '@agenthost/core';
import { APICallError } from 'ai';
import { describe, expect, test } from 'vitest';
import { describeError } from './error-log.js';

const CONFIGURED = 'configured-key-0123456789';

describe('describeError: provider failures', () => {
  test('a provider failure is its safe summary, with known secrets redacted; never its cause', () => {
    const cause = new APICallError({
      message: `Incorrect API key provided: ${CONFIGURED}`,
      url: 'https://api.openai.com/v1/chat/completions',
      requestBodyValues: { messages: [{ role: 'user', content: 'my private question' }] },
      statusCode: 401,
      responseBody: `{"error":{"message":"Incorrect API key provided: ${CONFIGURED}","code":"invalid_api_key"}}`,
    });
    const error = new ProviderError({
      cause,
      provider: {
        name: 'openai.chat',
        host: 'api.openai.com',
        status: 401,
        code: 'invalid_api_key',
        message: `Incorrect API key provided: ${CONFIGURED}`,
      },
    });
    expect(describeError(error, [CONFIGURED])).toStrictEqual({
      name: 'ProviderError',
      code: 'provider_error',
      message: 'The model provider failed to answer',
      provider: {
        name: 'openai.chat',
        host: 'api.openai.com',
        status: 401,
        code: 'invalid_api_key',
        message: 'Incorrect API key provided: [redacted]',
      },
    });
    const handMade = new ProviderError({
      provider: { name: 'custom', message: 'm', ...{ responseBody: `{"key":"${CONFIGURED}"}` } } as never,
    });
    expect(describeError(handMade, [])).toStrictEqual({
      name: 'ProviderError',
      code: 'provider_error',
      message: 'The model provider failed to answer',
      provider: { name: 'custom', message: 'm' },
    });
    expect(describeError(new ProviderError({ failure: 'timeout', cause }), [])).toStrictEqual({
      name: 'ProviderError',
      code: 'provider_timeout',
      message: 'The model provider did not answer in time',
    });
  });
});

describe('describeError: other errors', () => {
  test('any other error: name, code, message and stack, redacted, and its causes', () => {
    const root = Object.assign(new Error(`connect to redis://:${CONFIGURED}@cache:6379 failed, token=abc`), {
      code: 'ECONNREFUSED',
    });
    const error = new StorageUnavailableError({ cause: root });
    const described = describeError(error, [CONFIGURED]);
    expect(described).toStrictEqual({
      name: 'StorageUnavailableError',
      code: 'storage_unavailable',
      message: 'Storage is unavailable; retry later',
      stack: expect.stringMatching(/^StorageUnavailableError: Storage is unavailable; retry later\n\s+at /),
      cause: {
        name: 'Error',
        code: 'ECONNREFUSED',
        message: 'connect to redis://[redacted]@cache:6379 failed, token=[redacted]',
        stack: expect.stringMatching(
          /^Error: connect to redis:\/\/\[redacted\]@cache:6379 failed, token=\[redacted\]\n\s+at /,
        ),
      },
    });
    expect(JSON.stringify(described)).not.toContain(CONFIGURED);
  });

  test('an error with fields of odd types is still described, never throwing inside the error handler', () => {
    const odd = Object.assign(new Error('x'), { name: 42, code: { nested: true } });
    Object.defineProperty(odd, 'message', { value: { not: 'a string' } });
    Object.defineProperty(odd, 'stack', { value: 7 });
    expect(describeError(odd, [])).toStrictEqual({ name: '42', message: '[object Object]' });
  });

  test('a cause chain is followed five levels deep; what is not an Error is its redacted text', () => {
    let error: unknown = `thrown text with ${CONFIGURED}`;
    for (let i = 0; i < 8; i++) error = new Error(`level ${i}`, { cause: error });
    let described = describeError(error, [CONFIGURED]) as Record<string, unknown>;
    const messages: unknown[] = [];
    while (described) {
      messages.push(described.message ?? described.value);
      described = described.cause as Record<string, unknown>;
    }
    expect(messages).toStrictEqual(['level 7', 'level 6', 'level 5', 'level 4', 'level 3', 'level 2']);
    expect(describeError(`thrown text with ${CONFIGURED}`, [CONFIGURED])).toStrictEqual({
      value: 'thrown text with [redacted]',
    });
  });
});
