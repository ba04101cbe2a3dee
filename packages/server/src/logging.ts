import { REDACTED, redactSecrets } from '@agenthost/core';
import type { ErrorLogger } from '@agenthost/express';
import { type DestinationStream, type Logger, pino } from 'pino';

/** The request headers no log line may hold: keys, credentials, cookies. */
export const SECRET_REQUEST_HEADERS = ['x-api-key', 'authorization', 'cookie'] as const;

/** The paths that must never reach a log: the secret headers of a request, a response's cookies. */
export const REDACTED_PATHS = [
  ...SECRET_REQUEST_HEADERS.map((name) => `req.headers["${name}"]`),
  'res.headers["set-cookie"]',
];

/**
 * `err` fields: the router logs errors already described and redacted, as plain objects, which pino's
 * error serializer would take for errors (adding `type` and an empty `stack`); real errors still get it.
 */
const serializers = { err: (value: unknown) => (value instanceof Error ? pino.stdSerializers.err(value) : value) };

/** The loggers {@link createLogger} made, whose redaction is only of {@link REDACTED_PATHS}. */
const hostLoggers = new WeakSet<Logger>();

/** The server's logger: JSON lines, or readable lines when `pretty` (a terminal); secret headers redacted on any line. */
export function createLogger(options: { level: string; pretty: boolean; destination?: DestinationStream }): Logger {
  const base = { level: options.level, redact: { paths: REDACTED_PATHS, censor: REDACTED }, serializers };
  const logger = options.pretty
    ? pino({
        ...base,
        transport: {
          target: 'pino-pretty',
          options: { colorize: true, translateTime: 'SYS:HH:MM:ss.l', destination: 2 },
        },
      })
    : options.destination
      ? pino(base, options.destination)
      : pino(base);
  hostLoggers.add(logger);
  return logger;
}

/**
 * The logger for request lines: a logger {@link createLogger} made, without its redaction (a request
 * line holds no secret header to redact: it names the ones sent by `[redacted]` itself, and pino's
 * redaction costs several microseconds on every line); any other logger as it is, so that its own
 * redaction applies.
 */
export function requestLineLogger(logger: Logger): Logger {
  return hostLoggers.has(logger) ? logger.child({}, { redact: [] }) : logger;
}

/**
 * Reports a store's connection errors (its `onError`): the error's text, with `secrets` and whatever
 * looks like a secret redacted, since a driver's message may quote its connection URL.
 */
export function storageErrorLog(logger: ErrorLogger, secrets: readonly string[]): (error: unknown) => void {
  return function logStorageError(error) {
    logger.error({ err: redactSecrets(String(error), { secrets }) }, 'Storage connection error');
  };
}
