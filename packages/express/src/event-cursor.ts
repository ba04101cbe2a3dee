import { InvalidInputError } from '@agenthost/core';

/** Where a client asks a run's events to resume: the `Last-Event-ID` header, else the `after` query parameter. */
export interface EventCursorSource {
  /** The `Last-Event-ID` header as sent, when sent. */
  lastEventId?: string | undefined;
  /** The request's parsed query (`after` may be absent, a string, or repeated). */
  query: Record<string, unknown>;
}

const DIGITS = /^\d+$/;

/** A cursor's text as an event id: a non-negative safe integer written in decimal digits, else `undefined`. */
export function eventIdOf(raw: unknown): number | undefined {
  if (typeof raw !== 'string' || !DIGITS.test(raw)) return undefined;
  // Past 2^53 - 1 a number rounds to 2^53 or more, never back to a safe integer.
  const id = Number(raw);
  return Number.isSafeInteger(id) ? id : undefined;
}

/**
 * The id after which a run's events are to be read: the `Last-Event-ID` header when sent (it wins
 * over `after`), else the `after` query parameter, else 0 (every event).
 * @throws InvalidInputError naming the header or parameter when it is not a non-negative safe integer.
 */
export function eventCursor({ lastEventId, query }: EventCursorSource): number {
  const [name, raw] = lastEventId !== undefined ? ['Last-Event-ID', lastEventId] : ['after', query.after];
  if (raw === undefined) return 0;
  const id = eventIdOf(raw);
  if (id !== undefined) return id;
  throw new InvalidInputError({
    details: {
      [name]: {
        message: `${name} must be the id of an event: a whole number from 0 to ${Number.MAX_SAFE_INTEGER}`,
        path: [name],
      },
    },
  });
}
