import { randomFillSync } from 'node:crypto';

/** What an id is made for; the service asks for one of each kind. */
export type IdKind = 'agent' | 'session' | 'run';

/** Makes ids. Ids must be URL-safe and unguessable (at least 96 random bits). */
export type IdGenerator = (kind: IdKind) => string;

const PREFIX: Record<IdKind, string> = { agent: 'agt_', session: 'ses_', run: 'run_' };

/** Random bytes drawn from the system's generator 4 KiB at a time, each handed out once (as `randomUUID` does). */
const POOL_BYTES = 4096;
// Its own memory (`alloc`, never Node's shared pool of small Buffers): no other Buffer can see it.
const pool = Buffer.alloc(POOL_BYTES);
let used = POOL_BYTES;

/**
 * 128 random bits, never handed out before, in base64url (22 characters): for tokens that must be
 * unguessable and unique, such as a lock's owner. Drawn from the same pool as {@link randomId}.
 */
export function randomToken(): string {
  if (used + 16 > POOL_BYTES) {
    randomFillSync(pool);
    used = 0;
  }
  const text = pool.toString('base64url', used, used + 16);
  used += 16;
  return text;
}

/**
 * The default id generator: a kind prefix and 128 random bits in base64url, e.g. `agt_3q2-7wM...`.
 * The bits come from a pool filled by the system's generator (1.3 µs an id without it, 0.08 with it).
 */
export const randomId: IdGenerator = (kind) => PREFIX[kind] + randomToken();
