import { randomBytes } from 'node:crypto';

/** What an id is made for; the service asks for one of each kind. */
export type IdKind = 'agent' | 'session' | 'run';

/** Makes ids. Ids must be URL-safe and unguessable (at least 96 random bits). */
export type IdGenerator = (kind: IdKind) => string;

const PREFIX: Record<IdKind, string> = { agent: 'agt_', session: 'ses_', run: 'run_' };

/** The default id generator: a kind prefix and 128 random bits in base64url, e.g. `agt_3q2-7wM...`. */
export const randomId: IdGenerator = (kind) => PREFIX[kind] + randomBytes(16).toString('base64url');
