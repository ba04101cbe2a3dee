/** What is kept for one idempotency key. */
export interface IdempotencyRecord {
  /** A digest of the request the key was first used with. */
  fingerprint: string;
  /** `in_flight` while the first request runs; `done` with its response after. */
  state: 'in_flight' | 'done';
  /** Who holds an `in_flight` claim: a token of the request that runs, which alone renews or ends it. */
  owner?: string;
  /** The first request's response, replayed to retries. */
  response?: { status: number; body: unknown; headers?: Record<string, string> };
  created_at: string;
}

/**
 * The idempotency port, implemented by every agenthost store: records under opaque keys (the
 * caller scopes them by account), each kept for a given time. A backend must keep a record at least
 * until its time is up, and read-your-writes across processes sharing it.
 */
export interface IdempotencyStore {
  getIdempotency(key: string): Promise<IdempotencyRecord | undefined>;
  putIdempotency(key: string, record: IdempotencyRecord, ttlMs: number): Promise<void>;
  deleteIdempotency(key: string): Promise<void>;
}
