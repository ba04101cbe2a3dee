import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { NotFoundError } from '../errors/not-found-error.js';
import type { ApiKeyStore } from '../ports/api-key-store.js';
import { parseInput } from '../validation.js';
import { API_KEY_SCOPES, type ApiKeyInfo, type ApiKeyRecord, type ApiKeyScope } from './api-key-records.js';

/** Who a request acts for, once its key is accepted. */
export interface ApiKeyIdentity {
  accountId: string;
  scopes: readonly ApiKeyScope[];
  keyId: string;
}

/** Options of {@link ApiKeyService}. */
export interface ApiKeyServiceOptions {
  store: ApiKeyStore;
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
  name: z.string({ error: 'name must be a string' }).trim().min(1).max(100, 'name must be at most 100 characters').optional(),
  scopes: z
    .array(z.enum(API_KEY_SCOPES as [ApiKeyScope, ...ApiKeyScope[]], { error: `scopes are ${API_KEY_SCOPES.join(', ')}` }), { error: 'scopes must be a list' })
    .min(1, 'give at least one scope')
    .optional(),
});

/** The SHA-256 digest of a key, as stored. */
export const digestKey = (key: string) => createHash('sha256').update(key, 'utf8').digest('hex');

const info = ({ digest: _, ...rest }: ApiKeyRecord): ApiKeyInfo => rest;

/**
 * Issues, lists, revokes and checks API keys. A key is shown once, when it is made; the store keeps
 * only its SHA-256 digest and a short prefix. Keys carry scopes (`agents:read`, `agents:write`,
 * `agents:run`). Nothing is cached: a revoked key is refused by the next request on every server
 * sharing the store.
 */
export class ApiKeyService {
  readonly #store: ApiKeyStore;
  readonly #now: () => Date;
  readonly #resolution: number;

  constructor(options: ApiKeyServiceOptions) {
    if (!options?.store) throw new TypeError('ApiKeyService: options.store is required');
    this.#store = options.store;
    this.#now = options.now ?? (() => new Date());
    this.#resolution = options.lastUsedResolutionMs ?? 60_000;
  }

  /**
   * Makes a key for an account. The returned `key` is the only time the secret exists outside the
   * caller's hands; store it now.
   * @throws InvalidInputError for a bad account, name or scope.
   */
  async createKey(input: { account: string; name?: string; scopes?: readonly ApiKeyScope[] }): Promise<{ key: string; record: ApiKeyInfo }> {
    const { account, name, scopes } = parseInput(createKeySchema, input);
    const key = KEY_PREFIX + randomBytes(24).toString('base64url');
    const record: ApiKeyRecord = {
      key_id: `key_${randomBytes(9).toString('base64url')}`,
      account_id: account,
      name: name ?? null,
      prefix: key.slice(0, PREFIX_LENGTH),
      digest: digestKey(key),
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
    return (await this.#store.listKeys()).filter((k) => options.account === undefined || k.account_id === options.account).map(info);
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
    const record = await this.#store.findKeyByDigest(digestKey(key));
    if (!record || record.revoked_at) return null;
    const now = this.#now();
    if (!record.last_used_at || now.getTime() - Date.parse(record.last_used_at) >= this.#resolution) {
      // Best effort: a failed note of the last use must not refuse a valid key.
      void this.#store.updateKey({ ...record, last_used_at: now.toISOString() }).catch(() => {});
    }
    return { accountId: record.account_id, scopes: record.scopes, keyId: record.key_id };
  }
}
