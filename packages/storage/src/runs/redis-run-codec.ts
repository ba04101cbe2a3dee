import type { RunEventRecord } from '@agenthost/core';
import { StorageUnavailableError, type StoredRun } from '@agenthost/core';
import { RUN_FIELDS } from './run-fields.js';

/** A Redis hash reply as field/value pairs: a flat RESP2 array, or a RESP3 map. */
function hashEntries(reply: unknown): Map<string, string> {
  if (reply instanceof Map) return new Map([...reply].map(([k, v]) => [String(k), String(v)]));
  if (Array.isArray(reply)) {
    const map = new Map<string, string>();
    for (let i = 0; i + 1 < reply.length; i += 2) map.set(String(reply[i]), String(reply[i + 1]));
    return map;
  }
  if (reply && typeof reply === 'object') return new Map(Object.entries(reply).map(([k, v]) => [k, String(v)]));
  return new Map();
}

/** The hash fields of a run: each field's JSON. */
export function runFields(run: StoredRun): string[] {
  return RUN_FIELDS.flatMap((field) => [field, JSON.stringify(run[field])]);
}

/**
 * The run a hash reply holds, or `undefined` for an empty (missing) hash.
 * @throws StorageUnavailableError for a hash that lacks a field (it was not written by this store).
 */
export function parseRun(reply: unknown): StoredRun | undefined {
  const hash = hashEntries(reply);
  if (hash.size === 0) return undefined;
  const run: Record<string, unknown> = {};
  for (const field of RUN_FIELDS) {
    const value = hash.get(field);
    if (value === undefined) throw new StorageUnavailableError({ message: 'A stored run is incomplete' });
    run[field] = JSON.parse(value);
  }
  return run as unknown as StoredRun;
}

/** The events of an XRANGE reply (`[[id, [field, value, ...]], ...]`), each stored under the field `e`. */
export function parseEvents(reply: unknown): RunEventRecord[] {
  if (!Array.isArray(reply)) return [];
  return reply.map((entry) => {
    const [id, fields] = entry as [string, string[]];
    const index = fields.indexOf('e');
    return { id: Number.parseInt(String(id), 10), event: JSON.parse(String(fields[index + 1])) };
  });
}

/** The members and scores of a WITHSCORES reply (flat RESP2 pairs, or RESP3 pairs). */
export function parseScored(reply: unknown): { member: string; score: number }[] {
  if (!Array.isArray(reply)) return [];
  if (reply.every((item) => Array.isArray(item)))
    return reply.map(([member, score]) => ({ member: String(member), score: Number(score) }));
  const out: { member: string; score: number }[] = [];
  for (let i = 0; i + 1 < reply.length; i += 2) out.push({ member: String(reply[i]), score: Number(reply[i + 1]) });
  return out;
}
