import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { NotFoundError } from '../errors/not-found-error.js';
import type { ApiKeyStore } from '../ports/api-key-store.js';
import { parseInput } from '../validation.js';
import { API_KEY_SCOPES, type ApiKeyInfo, type ApiKeyRecord, type ApiKeyScope } from './api-key-records.js';
import { checkSecret, keyedHash } from './keyed-hash.js';

/** Who a request acts for, once its key is accepted. */
export interface ApiKeyIdentity {
  accountId: string;
  scopes: readonly ApiKeyScope[];
  keyId: string;
}

/** Options of {@link ApiKeyService}. */
export interface ApiKeyServiceOptions {
  store: ApiKeyStore;
  /**
   * The deployment secret (at least 32 characters) under which keys are hashed for the store. Every
   * server sharing the store needs the same one; under another secret no existing key is found.
   */
  secret: string;
  now?: () => Date;
  /** How stale `last_used_at` may get before a use writes it again, in ms (default 60 000). */
  lastUsedResolutionMs?: number;
}

const KEY_PREFIX = 'ah_';
const PREFIX_LENGTH = KEY_PREFIX.length + 6;

const createKeySchema = z.object({
  account: z
    .string({ error: 'account is required' })
    .regex(/^[A-Za-z0-9._-]{1,64}$/, 'account must be 1-64 characters of letters, digits, ".", "_" or "-"'),
  name: z
    .string({ error: 'name must be a string' })
    .trim()
    .min(1)
    .max(100, 'name must be at most 100 characters')
    .optional(),
  scopes: z
    .array(
      z.enum(API_KEY_SCOPES as [ApiKeyScope, ...ApiKeyScope[]], { error: `scopes are ${API_KEY_SCOPES.join(', ')}` }),
      { error: 'scopes must be a list' },
    )
    .min(1, 'give at least one scope')
    .optional(),
});

/** How keys were stored before keyed hashes: a bare SHA-256, hex. Read only to move such records. */
const legacyDigest = (key: string) => createHash('sha256').update(key, 'utf8').digest('hex');

const info = ({ digest: _, ...rest }: ApiKeyRecord): ApiKeyInfo => rest;

/**
 * Issues, lists, revokes and checks API keys. A key is shown once, when it is made; the store keeps
 * only its keyed hash (HMAC-SHA256 under the deployment secret) and a short prefix. A record kept
 * under a key's bare SHA-256, as before keyed hashes, is moved to the keyed hash on the key's next
 * use. Keys carry scopes (`agents:read`, `agents:write`, `agents:run`). Nothing is cached: a revoked
 * key is refused by the next request on every server sharing the store.
 *
 * @throws TypeError at creation without a store, or without a secret of 32+ characters.
 */
export class ApiKeyService {
  readonly #store: ApiKeyStore;
  readonly #secret: string;
  readonly #now: () => Date;
  readonly #resolution: number;

  constructor(options: ApiKeyServiceOptions) {
    if (!options?.store) throw new TypeError('ApiKeyService: options.store is required');
    checkSecret(options.secret, 'ApiKeyService: options.secret');
    this.#store = options.store;
    this.#secret = options.secret;
    this.#now = options.now ?? (() => new Date());
    this.#resolution = options.lastUsedResolutionMs ?? 60_000;
  }

  /**
   * Makes a key for an account. The returned `key` is the only time the secret exists outside the
   * caller's hands; store it now.
   * @throws InvalidInputError for a bad account, name or scope.
   */
  async createKey(input: {
    account: string;
    name?: string;
    scopes?: readonly ApiKeyScope[];
  }): Promise<{ key: string; record: ApiKeyInfo }> {
    const { account, name, scopes } = parseInput(createKeySchema, input);
    const key = KEY_PREFIX + randomBytes(24).toString('base64url');
    const record: ApiKeyRecord = {
      key_id: `key_${randomBytes(9).toString('base64url')}`,
      account_id: account,
      name: name ?? null,
      prefix: key.slice(0, PREFIX_LENGTH),
      digest: this.#digest(key),
      scopes: [...new Set(scopes ?? API_KEY_SCOPES)],
      created_at: this.#now().toISOString(),
      last_used_at: null,
      revoked_at: null,
    };
    await this.#store.createKey(record);
    return { key, record: info(record) };
  }

  /** Every key (optionally of one account), oldest first, without digests. */
  async listKeys(options: { account?: string } = {}): Promise<ApiKeyInfo[]> {
    return (await this.#store.listKeys())
      .filter((k) => options.account === undefined || k.account_id === options.account)
      .map(info);
  }

  /**
   * Revokes a key: from now on every server refuses it. Revoking twice keeps the first time.
   * @throws NotFoundError for an unknown key id.
   */
  async revokeKey(keyId: string): Promise<ApiKeyInfo> {
    const record = await this.#store.getKey(keyId);
    if (!record) throw new NotFoundError({ message: 'API key not found' });
    if (record.revoked_at) return info(record);
    const revoked = { ...record, revoked_at: this.#now().toISOString() };
    await this.#store.updateKey(revoked);
    return info(revoked);
  }

  /** The identity of a valid key, or `null` for an unknown or revoked one. Notes the use. */
  async authenticate(key: string): Promise<ApiKeyIdentity | null> {
    if (typeof key !== 'string' || !key.startsWith(KEY_PREFIX) || key.length > 200) return null;
    const digest = this.#digest(key);
    const record = (await this.#store.findKeyByDigest(digest)) ?? (await this.#findLegacy(key, digest));
    if (!record || record.revoked_at) return null;
    const now = this.#now();
    if (!record.last_used_at || now.getTime() - Date.parse(record.last_used_at) >= this.#resolution) {
      // Best effort: a failed note of the last use must not refuse a valid key.
      void this.#store.updateKey({ ...record, last_used_at: now.toISOString() }).catch(() => {});
    }
    return { accountId: record.account_id, scopes: record.scopes, keyId: record.key_id };
  }

  #digest(key: string): string {
    return keyedHash(this.#secret, 'api-key', key);
  }

  /** A record still under the key's bare digest, which is then moved to `digest` (its keyed hash). */
  async #findLegacy(key: string, digest: string): Promise<ApiKeyRecord | undefined> {
    const legacy = legacyDigest(key);
    const record = await this.#store.findKeyByDigest(legacy);
    // Another server may have moved the record between the two lookups: then it is under `digest` now.
    if (!record) return this.#store.findKeyByDigest(digest);
    // Best effort: the record was found, so a failed move must not refuse the key; the next use retries.
    await this.#store.moveKey(record.key_id, legacy, digest).catch(() => {});
    return record;
  }
}
