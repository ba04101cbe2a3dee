import { APICallError, JSONParseError, RetryError } from 'ai';
import { describe, expect, test } from 'vitest';
import { ProviderError } from './errors/provider-error.js';
import { providerFailure } from './provider-failures.js';

const URL_CALLED = 'https://api.openai.com/v1/chat/completions?api-version=1&key=sk-in-query-0123456789abcdef';
const PROMPT = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'my private question' }] };
const ECHOED_KEY = 'sk-live-abcdef0123456789abcdef';

function apiCallError(overrides: Partial<ConstructorParameters<typeof APICallError>[0]> = {}): APICallError {
  const body = {
    error: {
      message: `Incorrect API key provided: ${ECHOED_KEY}`,
      type: 'invalid_request_error',
      code: 'invalid_api_key',
    },
  };
  return new APICallError({
    message: body.error.message,
    url: URL_CALLED,
    requestBodyValues: PROMPT,
    statusCode: 401,
    responseBody: JSON.stringify(body),
    data: body,
    ...overrides,
  });
}

/** Everything of an error a log could show, as one string. */
const everything = (error: ProviderError) => JSON.stringify({ ...error, message: error.message, stack: error.stack });

describe('providerFailure: the summary a log may show', () => {
  test("a rejected key: provider, host, status and the provider's code; the echoed key redacted", () => {
    const failure = providerFailure(apiCallError(), { timedOut: false, provider: 'openai.chat' });
    expect([failure.code, failure.provider]).toStrictEqual([
      'provider_error',
      {
        name: 'openai.chat',
        host: 'api.openai.com',
        status: 401,
        code: 'invalid_api_key',
        message: 'Incorrect API key provided: [redacted]',
      },
    ]);
    expect(everything(failure)).not.toContain(ECHOED_KEY);
    expect(everything(failure)).not.toContain('my private question');
  });

  test("the code comes from the raw body when the provider parsed none, in Anthropic's and Google's shapes too", () => {
    const cases = [
      [
        { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } },
        'authentication_error',
      ],
      [{ error: { code: 400, message: 'API key not valid', status: 'INVALID_ARGUMENT' } }, 'INVALID_ARGUMENT'],
      [{ error: { message: 'The server had an error', type: 'server_error', code: null } }, 'server_error'],
      [{ error: { code: 'not a code: it has spaces' } }, undefined],
      ['not json at all', undefined],
    ] as const;
    for (const [body, code] of cases) {
      const error = apiCallError({
        data: undefined,
        responseBody: typeof body === 'string' ? body : JSON.stringify(body),
        statusCode: 400,
        message: 'Bad Request',
      });
      expect(providerFailure(error, { timedOut: false, provider: 'p' }).provider).toStrictEqual({
        name: 'p',
        host: 'api.openai.com',
        status: 400,
        ...(code && { code }),
        message: 'Bad Request',
      });
    }
  });

  test('an oversized body is not parsed', () => {
    const huge = JSON.stringify({ error: { code: 'too_big', padding: 'x'.repeat(70_000) } });
    const error = apiCallError({
      data: undefined,
      responseBody: huge,
      statusCode: 500,
      message: 'Internal Server Error',
    });
    expect(providerFailure(error, { timedOut: false, provider: 'p' }).provider).toStrictEqual({
      name: 'p',
      host: 'api.openai.com',
      status: 500,
      message: 'Internal Server Error',
    });
  });
});

describe('providerFailure: retries, answers and connections', () => {
  test('after retries: the last attempt, and a rate limit keeps its Retry-After', () => {
    const limited = apiCallError({
      statusCode: 429,
      responseHeaders: { 'retry-after': '7' },
      message: 'Rate limit reached',
      data: { error: { type: 'requests', code: 'rate_limit_exceeded' } },
    });
    const retried = new RetryError({
      message: `Failed after 3 attempts. Last error: ${ECHOED_KEY}`,
      reason: 'maxRetriesExceeded',
      errors: [apiCallError(), limited],
    });
    const failure = providerFailure(retried, { timedOut: false, provider: 'openai.responses' });
    expect([failure.code, failure.retryAfterSeconds, failure.provider]).toStrictEqual([
      'provider_rate_limited',
      7,
      {
        name: 'openai.responses',
        host: 'api.openai.com',
        status: 429,
        code: 'rate_limit_exceeded',
        message: 'Rate limit reached',
      },
    ]);
  });

  test("an answer that is not JSON: the call's message, never the text its cause quotes", () => {
    const cause = new JSONParseError({
      text: '{"choices": [ the model said something private',
      cause: new SyntaxError('Unexpected token'),
    });
    const error = apiCallError({
      message: 'Invalid JSON response',
      statusCode: 200,
      data: undefined,
      responseBody: cause.text,
      cause,
    });
    const failure = providerFailure(error, { timedOut: false, provider: 'openai.chat' });
    expect(failure.provider).toStrictEqual({
      name: 'openai.chat',
      host: 'api.openai.com',
      status: 200,
      message: 'Invalid JSON response',
    });
  });

  test("a dropped connection names the network error's code; without a provider id the host names it", () => {
    const socket = Object.assign(new Error('other side closed'), { name: 'SocketError', code: 'UND_ERR_SOCKET' });
    const error = apiCallError({
      message: 'Cannot connect to API: other side closed',
      statusCode: undefined,
      responseBody: undefined,
      data: undefined,
      url: 'http://user:pw@127.0.0.1:4010/v1/x?key=k',
      cause: socket,
    });
    expect(providerFailure(error, { timedOut: false }).provider).toStrictEqual({
      name: '127.0.0.1:4010',
      host: '127.0.0.1:4010',
      message: 'Cannot connect to API: other side closed (UND_ERR_SOCKET)',
    });
  });
});

describe("providerFailure: errors that are no provider's answer", () => {
  test('a timeout and an error that is no API call: a short, redacted message', () => {
    const timeout = providerFailure(new DOMException('The operation was aborted due to timeout', 'TimeoutError'), {
      timedOut: true,
      provider: 'openai.chat',
    });
    expect([timeout.code, timeout.provider]).toStrictEqual([
      'provider_timeout',
      { name: 'openai.chat', message: 'The operation was aborted due to timeout' },
    ]);
    const odd = providerFailure(new Error(`boom with ${ECHOED_KEY}\n  and ${'more '.repeat(100)}`), {
      timedOut: false,
      provider: 'mock',
    });
    expect(odd.provider?.message).toBe(`boom with [redacted] and ${'more '.repeat(30)}[truncated]`);
    expect(providerFailure('a thrown string', { timedOut: false }).provider).toStrictEqual({
      name: 'unknown',
      message: 'a thrown string',
    });
  });

  test("the AI SDK's own errors that quote the model's answer are named, never quoted", () => {
    const chunk = 'the model said: my private answer';
    const failure = providerFailure(new JSONParseError({ text: chunk, cause: new Error('Unexpected token') }), {
      timedOut: false,
      provider: 'openai.chat',
    });
    expect(failure.provider).toStrictEqual({ name: 'openai.chat', message: 'AI_JSONParseError' });
    expect(JSON.stringify(failure.provider)).not.toContain('private');
  });

  test('a ProviderError made without a summary has none', () => {
    expect(new ProviderError().provider).toBeUndefined();
  });
});
