import { expect, test } from 'vitest';
import { failure, refusal } from './envelope.js';
import { ERROR_CODES, STATUS_BY_CODE } from './error-codes.js';

test('every code is answered with its own status', () => {
  for (const code of ERROR_CODES) {
    const response = refusal(code, 'x');
    expect(response).toStrictEqual({
      status: STATUS_BY_CODE[code],
      body: { success: false, error: 'x', code, status: STATUS_BY_CODE[code] },
    });
  }
});

test('a status no code stands for is answered as its class: code and status always agree', () => {
  expect(failure(416, 'Bad request')).toStrictEqual({
    status: 400,
    body: { success: false, error: 'Bad request', code: 'malformed_request', status: 400 },
  });
  expect(failure(501, 'Internal server error')).toStrictEqual({
    status: 500,
    body: { success: false, error: 'Internal server error', code: 'internal', status: 500 },
  });
  expect(failure(413, 'Too large', undefined, { Connection: 'close' })).toStrictEqual({
    status: 413,
    body: { success: false, error: 'Too large', code: 'payload_too_large', status: 413 },
    headers: { Connection: 'close' },
  });
});
