import type { ApiKeyRecord } from '../keys/api-key-records.js';

/**
 * The API key storage port, implemented by every agenthost store. It holds key records, never a
 * key itself: a record has the key's digest (a keyed hash, see `keyedHash`; records made before
 * keyed hashes have a bare SHA-256 until `moveKey` moves them) and a short, non-secret prefix.
 *
 * A backend must guarantee read-your-writes across every process sharing it (a revoked key is
 * refused by the next request on any server), that records are copies, and that a record is found
 * under one digest at a time: while and after `moveKey` runs, on any process, no lookup sees the
 * record under its old digest once it can be found under the new one, and no update is lost.
 */
export interface ApiKeyStore {
  /** Stores a new key record (`key_id` and `digest` are unique). */
  createKey(record: ApiKeyRecord): Promise<void>;
  /** The record whose key has this digest, or `undefined`. */
  findKeyByDigest(digest: string): Promise<ApiKeyRecord | undefined>;
  /** The record with this id, or `undefined`. */
  getKey(keyId: string): Promise<ApiKeyRecord | undefined>;
  /** Every key record, oldest first (an administrative listing). */
  listKeys(): Promise<ApiKeyRecord[]>;
  /**
   * Replaces the key record with the same `key_id` (revocation, last use), wherever its digest now
   * is: the stored digest is kept, whatever `record.digest` says, and so is a stored `revoked_at`
   * (revocation is final: a write from a copy read before it, such as noting a use, never lifts it).
   * `false` when there is none with its id.
   */
  updateKey(record: ApiKeyRecord): Promise<boolean>;
  /**
   * Moves the record with this id from digest `from` to digest `to` (a key stored under a bare digest
   * goes under its keyed hash), and removes everything stored under `from`. `false`, changing nothing,
   * when the record is not under `from` (already moved, or unknown). Concurrent and repeated calls are
   * safe. A move cut short (a crash halfway) leaves the record found under exactly one of the two
   * digests, so the key works and its updates land where lookups read.
   */
  moveKey(keyId: string, from: string, to: string): Promise<boolean>;
}
