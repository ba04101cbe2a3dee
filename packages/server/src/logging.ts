import { redactSecrets } from '@agenthost/core';
import type { ErrorLogger } from '@agenthost/express';
import { type Logger, pino } from 'pino';
import { logSerializers } from './log-serializers.js';

/**
 * The server's logger: JSON lines, or readable lines when `pretty` (a terminal); on any line, the
 * secret headers of a `req` or `res` field as `[redacted]` ({@link logSerializers}).
 */
export function createLogger(options: { level: string; pretty: boolean; destination?: NodeJS.WritableStream }): Logger {
  const base = { level: options.level, serializers: logSerializers };
  if (options.pretty)
    return pino({
      ...base,
      transport: {
        target: 'pino-pretty',
        options: { colorize: true, translateTime: 'SYS:HH:MM:ss.l', destination: 2 },
      },
    });
  return options.destination ? pino(base, options.destination as never) : pino(base);
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
