import { IncomingMessage, ServerResponse } from 'node:http';
import { REDACTED } from '@agenthost/core';
import { pino } from 'pino';

/** The request headers no log line may hold: keys, credentials, cookies. */
const SECRET_REQUEST_HEADERS = new Set(['x-api-key', 'authorization', 'cookie', 'proxy-authorization']);
/** The response headers no log line may hold. */
const SECRET_RESPONSE_HEADERS = new Set(['set-cookie']);

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/**
 * `value` with the `secret` headers of its `headers` (named in any case) replaced by `[redacted]`: a
 * copy when one is there, else `value` itself.
 */
function withoutSecretHeaders(value: unknown, secret: ReadonlySet<string>): unknown {
  if (!isRecord(value) || !isRecord(value.headers)) return value;
  const headers = value.headers;
  let masked: Record<string, unknown> | undefined;
  for (const name of Object.keys(headers)) {
    if (headers[name] === REDACTED || !secret.has(name.toLowerCase())) continue;
    masked ??= { ...headers };
    masked[name] = REDACTED;
  }
  return masked ? { ...value, headers: masked } : value;
}

/**
 * The host's logger's serializers. `req` and `res` (a line's own field or a child logger's binding):
 * an Node request or response as pino's standard serializers describe it, and in any of them the
 * secret headers as `[redacted]`, so no line that holds a request leaks its key. (They take the place
 * of pino's `redact` paths, which cost several microseconds on every line, request lines included.)
 * `err`: the router logs errors already described and redacted, as plain objects, which pino's error
 * serializer would take for errors (adding `type` and an empty `stack`); real errors still get it.
 */
export const logSerializers = {
  req: (value: unknown) =>
    withoutSecretHeaders(
      value instanceof IncomingMessage ? pino.stdSerializers.req(value) : value,
      SECRET_REQUEST_HEADERS,
    ),
  res: (value: unknown) =>
    withoutSecretHeaders(
      value instanceof ServerResponse ? pino.stdSerializers.res(value) : value,
      SECRET_RESPONSE_HEADERS,
    ),
  err: (value: unknown) => (value instanceof Error ? pino.stdSerializers.err(value) : value),
};
