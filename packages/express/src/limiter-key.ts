import { hash } from 'node:crypto';
import { keyedHash } from '@agenthost/core';

/** How many keys' counter names a router remembers; past it, the least recently used is forgotten. */
export const REMEMBERED_KEYS = 2048;

/**
 * Names the per-key rate-limit counter of an API key: `key:` and the key's keyed hash under `secret`
 * (`keyedHash`, purpose `rate-limit`). A key's name never changes, so the names of the last
 * {@link REMEMBERED_KEYS} keys used are remembered, indexed by the key's SHA-256 rather than the key
 * itself; only `remember`ed names are kept, so keys that never authenticated cannot fill the memory.
 */
export function limiterKeyNames(secret: string, size = REMEMBERED_KEYS): (key: string, remember: boolean) => string {
  const names = new Map<string, string>();
  // The digest of the key used last, which (while the map holds it) is the map's last entry: used again
  // (a client's requests come in runs), it stays where it is instead of being deleted and set again,
  // which makes a Map copy its table over and over. Keys of clients whose requests interleave still
  // move, as they must.
  let last: string | undefined;
  return function limiterKeyName(key, remember) {
    const digest = hash('sha256', key, 'base64url');
    const known = names.get(digest);
    if (known !== undefined) {
      if (digest !== last) {
        // Moved to the end: the map's first entry is the least recently used.
        names.delete(digest);
        names.set(digest, known);
        last = digest;
      }
      return known;
    }
    const name = `key:${keyedHash(secret, 'rate-limit', key)}`;
    if (!remember) return name;
    names.set(digest, name);
    last = digest;
    if (names.size > size) names.delete(names.keys().next().value as string);
    return name;
  };
}
