import type { IdempotencyRecord, IdempotencyStore } from '../ports/idempotency-store.js';

/** Options of {@link memoryIdempotencyStore}. */
export interface MemoryIdempotencyOptions {
  /** Most kept responses in all (default 10 000). */
  maxEntries?: number;
  /** Most kept responses of one partition (default 1 000 with `partition`, else `maxEntries`). */
  maxPerPartition?: number;
  /**
   * The partition (the account) a record key belongs to, so that one account's flood of keys only
   * ever pushes out that account's own records. Default: one partition for every key.
   */
  partition?: (key: string) => string;
}

interface Entry {
  record: IdempotencyRecord;
  expires: number;
}

/**
 * Idempotency records in this process's memory, for one server. Records expire after their time.
 * Kept responses are bounded, per partition and in all; past a bound the oldest written are forgotten
 * first, within the partition that went over it (a forgotten key runs again on retry). Claims of
 * requests in flight are never pushed out: there are only as many as requests running. Share a store
 * between servers (`@agenthost/storage`) for retries that may reach another server.
 */
export function memoryIdempotencyStore(options: MemoryIdempotencyOptions = {}): IdempotencyStore {
  const maxEntries = bound('maxEntries', options.maxEntries, 10_000);
  const maxPerPartition = bound('maxPerPartition', options.maxPerPartition, options.partition ? 1_000 : maxEntries);
  const partitionOf = options.partition ?? (() => '');
  // Per partition, keys in write order: a key written again moves to the end.
  const partitions = new Map<string, Map<string, Entry>>();
  let kept = 0;

  const drop = (partition: Map<string, Entry>, key: string) => {
    if (partition.get(key)?.record.state === 'done') kept--;
    partition.delete(key);
  };
  /** Forgets the oldest kept response of a partition; false when it has none. */
  const forgetOldest = (partition: Map<string, Entry>): boolean => {
    for (const [key, entry] of partition) {
      if (entry.record.state !== 'done') continue;
      drop(partition, key);
      return true;
    }
    return false;
  };

  return {
    async getIdempotency(key) {
      const partition = partitions.get(partitionOf(key));
      const entry = partition?.get(key);
      if (!entry) return undefined;
      if (entry.expires > Date.now()) return structuredClone(entry.record);
      drop(partition!, key);
      if (partition!.size === 0) partitions.delete(partitionOf(key));
      return undefined;
    },
    async putIdempotency(key, record, ttlMs) {
      const name = partitionOf(key);
      const partition = partitions.get(name) ?? new Map<string, Entry>();
      partitions.set(name, partition);
      drop(partition, key);
      partition.set(key, { record: structuredClone(record), expires: Date.now() + ttlMs });
      if (record.state !== 'done') return;
      kept++;
      let own = [...partition.values()].filter((e) => e.record.state === 'done').length;
      while (own-- > maxPerPartition && forgetOldest(partition));
      // Past the bound in all: the largest partition gives up its oldest.
      while (kept > maxEntries) {
        const largest = [...partitions.values()].reduce((a, b) => (b.size > a.size ? b : a));
        if (!forgetOldest(largest)) break;
      }
    },
    async deleteIdempotency(key) {
      const name = partitionOf(key);
      const partition = partitions.get(name);
      if (!partition) return;
      drop(partition, key);
      if (partition.size === 0) partitions.delete(name);
    },
  };
}

function bound(name: string, value: number | undefined, fallback: number): number {
  const v = value ?? fallback;
  if (!Number.isSafeInteger(v) || v < 1)
    throw new TypeError(`memoryIdempotencyStore: ${name} must be a positive integer`);
  return v;
}
