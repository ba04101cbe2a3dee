import { invalidField } from './validation.js';

/** Options of a paged read. */
export interface PageOptions {
  /** Page size: 1 to 100 (default 20 sessions, 100 messages). */
  limit?: number;
  /** The `next_cursor` of the previous page. */
  cursor?: string;
}

/** Options of a paged list of agents. */
export interface AgentListOptions extends PageOptions {
  /** `asc`: oldest first (default); `desc`: newest first. */
  order?: 'asc' | 'desc';
  /** Only agents whose `metadata` has every one of these pairs (at most 16). */
  metadata?: Record<string, string>;
}

/**
 * A page size a caller asked for, or `fallback`.
 * @throws InvalidInputError unless it is a whole number from 1 to 100.
 */
export function pageLimit(limit: number | undefined, fallback: number): number {
  const v = limit ?? fallback;
  if (!Number.isSafeInteger(v) || v < 1 || v > 100)
    throw invalidField('limit', 'limit must be a whole number from 1 to 100');
  return v;
}

/**
 * The order of a list of agents a caller asked for (default oldest first).
 * @throws InvalidInputError for anything but `asc` or `desc`.
 */
export function listOrder(order: string | undefined): 'asc' | 'desc' {
  const v = order ?? 'asc';
  if (v !== 'asc' && v !== 'desc') throw invalidField('order', 'order must be "asc" or "desc"');
  return v;
}

/** The cursor a client sends back for the page from `position`: opaque to clients, a store position to us. */
export function encodeCursor(position: number | null): string | null {
  return position === null ? null : Buffer.from(`p${position}`).toString('base64url');
}

/**
 * The store position a cursor stands for, or `undefined` for no cursor.
 * @throws InvalidInputError for a cursor this server did not give out.
 */
export function decodeCursor(cursor: string | undefined): number | undefined {
  if (cursor === undefined) return undefined;
  const match = /^p(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) throw invalidField('cursor', 'cursor is not one this server gave out');
  return Number(match[1]);
}
