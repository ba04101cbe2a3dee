import { createHmac } from 'node:crypto';

/** Shortest deployment secret accepted, in characters. */
export const MIN_SECRET_LENGTH = 32;

/**
 * What a keyed hash names. Each use has its own, so one API key gives unrelated names in different
 * places (a rate-limit counter cannot be matched to a key record).
 */
export type KeyedHashPurpose = 'api-key' | 'rate-limit';

/**
 * The name under which something derived from an API key is stored: HMAC-SHA256 of
 * `<purpose>:<value>` under the deployment secret, base64url (43 characters).
 *
 * A bare digest of a short key lets anyone who can list the store's keys test guesses offline; the
 * keyed hash needs the secret for each guess. Use it for every storage name derived from a key.
 */
export function keyedHash(secret: string, purpose: KeyedHashPurpose, value: string): string {
  return createHmac('sha256', secret).update(`${purpose}:${value}`, 'utf8').digest('base64url');
}

/**
 * Checks a deployment secret given to a constructor or factory.
 * @throws TypeError naming `who` unless `secret` is a string of at least {@link MIN_SECRET_LENGTH} characters.
 */
export function checkSecret(secret: unknown, who: string): asserts secret is string {
  if (typeof secret !== 'string' || secret.length < MIN_SECRET_LENGTH)
    throw new TypeError(`${who} must be a string of at least ${MIN_SECRET_LENGTH} characters`);
}
