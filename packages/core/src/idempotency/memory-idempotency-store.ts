import type { IdempotencyRecord, IdempotencyStore } from '../ports/idempotency-store.js';

/** Options of {@link memoryIdempotencyStore}. */
export interface MemoryIdempotencyOptions {
  /** Most records kept; past it the oldest written are forgotten first (default 10 000). */
  maxEntries?: number;
}

/**
 * Idempotency records in this process's memory, for one server. Records expire after their time, and
 * there are never more than `maxEntries`: past that the oldest are forgotten first, so a flood of
 * distinct keys costs bounded memory (a forgotten key runs again on retry). Share a store between
 * servers (`@agenthost/storage`) for retries that may reach another server.
 */
export function memoryIdempotencyStore(options: MemoryIdempotencyOptions = {}): IdempotencyStore {
  const maxEntries = options.maxEntries ?? 10_000;
  if (!Number.isSafeInteger(maxEntries) || maxEntries < 1) throw new TypeError('memoryIdempotencyStore: maxEntries must be a positive integer');
  // Insertion order is write order: a key written again moves to the end.
  const records = new Map<string, { record: IdempotencyRecord; expires: number }>();
  return {
    async getIdempotency(key) {
      const entry = records.get(key);
      if (!entry) return undefined;
      if (entry.expires > Date.now()) return structuredClone(entry.record);
      records.delete(key);
      return undefined;
    },
    async putIdempotency(key, record, ttlMs) {
      records.delete(key);
      records.set(key, { record: structuredClone(record), expires: Date.now() + ttlMs });
      for (const oldest of records.keys()) {
        if (records.size <= maxEntries) break;
        records.delete(oldest);
      }
    },
    async deleteIdempotency(key) {
      records.delete(key);
    },
  };
}
