import type { ApiKeyRecord } from '../keys/api-key-records.js';

/**
 * The API key storage port, implemented by every agenthost store. It holds key records, never a
 * key itself: a record has the key's SHA-256 digest and a short, non-secret prefix.
 *
 * A backend must guarantee read-your-writes across every process sharing it (a revoked key is
 * refused by the next request on any server), and that records are copies.
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
  /** Replaces a key record (revocation, last use); `false` when there is none with its id. */
  updateKey(record: ApiKeyRecord): Promise<boolean>;
}
