/** What an API key may do. */
export type ApiKeyScope = 'agents:read' | 'agents:write' | 'agents:run';

/** Every scope, in order: read agents and sessions, change them, run them. */
export const API_KEY_SCOPES: readonly ApiKeyScope[] = Object.freeze(['agents:read', 'agents:write', 'agents:run']);

/** A stored API key: everything but the key itself. */
export interface ApiKeyRecord {
  key_id: string;
  account_id: string;
  /** A label for people, e.g. "ci" or "support-bot". */
  name: string | null;
  /** The first characters of the key, enough to recognise it, far too few to use it. */
  prefix: string;
  /**
   * The keyed hash of the key (`keyedHash` under the deployment secret, base64url); a record made
   * before keyed hashes has the key's bare SHA-256 (hex) until its next use moves it.
   */
  digest: string;
  scopes: ApiKeyScope[];
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

/** A key record as shown to people: no digest. */
export type ApiKeyInfo = Omit<ApiKeyRecord, 'digest'>;
