import { hash } from 'node:crypto';
import {
  type AgentPage,
  type AgentRecord,
  type AgentStore,
  type AgentVersion,
  type ApiKeyRecord,
  type ApiKeyStore,
  type HostSecretStore,
  type IdempotencyRecord,
  type IdempotencyStore,
  inProcessLocks,
  type Lease,
  type LockProvider,
  type MessageWindow,
  matchesMetadata,
  type PendingTurn,
  type SessionInfo,
  type SessionMessage,
  type SessionPage,
  type SessionRef,
  StorageUnavailableError,
  type VersionPage,
} from '@agenthost/core';
import type Keyv from 'keyv';
import { storageCall } from './deadline.js';

/** Options of {@link KeyvStore}. */
export interface KeyvStoreOptions {
  /**
   * Serialises the writes that read a counter and then write past it (appends to one session, the
   * agent index of one account). Every process that uses the same Keyv backend must use a lock
   * provider that reaches all of them (`redisLocks`, `postgresLocks`); the default, in-process
   * locks, is right only for a single process.
   */
  locks?: LockProvider;
  /** How long a write waits for its lock, in ms (default 10 000). */
  lockWaitMs?: number;
  /** Called by `close()` after the Keyv instance is disconnected (for example to close a lock connection). */
  onClose?: () => Promise<void>;
  /**
   * Bound on each storage call, in ms (default 5 000). Past it the call fails with
   * `StorageUnavailableError`; it is also the margin a write keeps from the end of its lock's lease.
   */
  commandTimeoutMs?: number;
  /** Called when a storage call misses its deadline (for example to replace the connection). */
  onTimeout?: () => void;
}

// Keys hash every caller-supplied part: bounded length (Postgres keys are VARCHAR(255)), no
// separator can make two different (account, agent, session) triples collide, and no id appears
// in the store's key space in clear.
const digest = (...parts: string[]) => hash('sha256', JSON.stringify(parts), 'base64url');
const BATCH = 500;
/** A key's digest: a keyed hash (base64url), or a bare SHA-256 (hex) of a record made before keyed hashes. */
const KEY_DIGEST = /^(?:[A-Za-z0-9_-]{43}|[0-9a-f]{64})$/;
/** Where a key record is, by id: the one place that says which digest the record is under. */
const keyPointer = (keyId: string) => `apikey-id:${digest(keyId)}`;
const HOST_SECRET = 'host-secret';

/**
 * An {@link AgentStore} over any Keyv instance: Keyv's in-memory Map, SQLite, Redis, Postgres, or any
 * other Keyv adapter. Create the Keyv instance with `throwOnErrors: true`, or an outage would look like
 * missing data (the `openStore` helper does this).
 *
 * Layout: each agent under its own key; per account an index of agent ids (`n` and one key per
 * position); per session a meta record (count, timestamps, index position) and one key per message;
 * per agent an index of session ids. A session's pending turn (which may hold megabytes of images
 * and tool output) is under a key of its own, a new one per write (`<session>:pending:<seq>`), written
 * before the meta record, which keeps only its seq: messages and the pending turn's change still
 * commit in the one write of the meta, and listing or reading sessions never reads the turn. The key
 * a change replaces is removed after the meta write, best effort (a leftover is never read; deleting
 * the session removes it); a meta of the earlier layout, with the turn inline, reads as before.
 * Reading the last N messages reads N + 1 keys whatever the session's length, and listing an account
 * reads its own agents only. A write stores the items first and moves the count last, under a lock,
 * so a failed write is invisible and a concurrent one cannot overwrite it. A key record counts only under the digest its id points at, so moving it to another
 * digest takes effect in one write; the deployment secret is created under a lock.
 */
export class KeyvStore implements AgentStore, ApiKeyStore, IdempotencyStore, HostSecretStore {
  readonly #keyv: Keyv;
  readonly #locks: LockProvider;
  readonly #lockWaitMs: number;
  readonly #onClose: (() => Promise<void>) | undefined;
  readonly #commandTimeoutMs: number;
  readonly #onTimeout: (() => void) | undefined;

  constructor(keyv: Keyv, options: KeyvStoreOptions = {}) {
    this.#keyv = keyv;
    this.#locks = options.locks ?? inProcessLocks();
    this.#lockWaitMs = options.lockWaitMs ?? 10_000;
    this.#onClose = options.onClose;
    this.#commandTimeoutMs = options.commandTimeoutMs ?? 5_000;
    this.#onTimeout = options.onTimeout;
  }

  async createAgent(accountId: string, agent: AgentRecord): Promise<void> {
    const index = `agents:${digest(accountId)}`;
    const key = `agent:${digest(accountId, agent.agent_id)}`;
    await this.#keepVersion(accountId, agent);
    await this.#set(key, agent);
    await this.#locked(`index:${index}`, async (lease) => {
      const n = await this.#count(`${index}:n`);
      await this.#set(`${index}:${n}`, agent.agent_id);
      await this.#set(`${key}:pos`, n);
      this.#stillHeld(lease);
      await this.#set(`${index}:n`, n + 1);
    });
  }

  async listAgentsPage(
    accountId: string,
    {
      limit,
      after,
      order,
      metadata,
    }: { limit: number; after?: number; order: 'asc' | 'desc'; metadata?: Readonly<Record<string, string>> },
  ): Promise<AgentPage> {
    const index = `agents:${digest(accountId)}`;
    const n = await this.#count(`${index}:n`);
    const step = order === 'asc' ? 1 : -1;
    const agents: AgentRecord[] = [];
    let pos = after === undefined ? (order === 'asc' ? 0 : n - 1) : after + step;
    let last = pos;
    while (pos >= 0 && pos < n && agents.length < limit) {
      // Read a little more than needed: entries of deleted agents are skipped.
      const want = limit - agents.length + 4;
      const positions = range(0, want)
        .map((i) => pos + i * step)
        .filter((p) => p >= 0 && p < n);
      const found = await this.#liveAgents(accountId, index, positions);
      for (const p of positions) {
        if (agents.length === limit) break;
        const agent = found.get(p);
        if (agent && (!metadata || matchesMetadata(agent, metadata))) agents.push(agent);
        last = p;
        pos = p + step;
      }
    }
    return { agents, next: agents.length === limit && pos >= 0 && pos < n ? last : null };
  }

  async updateAgent(accountId: string, agent: AgentRecord): Promise<boolean> {
    const key = `agent:${digest(accountId, agent.agent_id)}`;
    if (!(await this.#call(() => this.#keyv.get(key)))) return false;
    // The version first, the record last: a reader never sees a record whose version is not kept.
    await this.#keepVersion(accountId, agent);
    await this.#set(key, agent);
    return true;
  }

  async getAgentVersion(accountId: string, agentId: string, version: number): Promise<AgentVersion | undefined> {
    if (!Number.isSafeInteger(version) || version < 1) return undefined;
    return this.#call(() => this.#keyv.get<AgentVersion>(versionKey(accountId, agentId, version)));
  }

  async listAgentVersions(
    accountId: string,
    agentId: string,
    { limit, before }: { limit: number; before?: number },
  ): Promise<VersionPage> {
    const agent = await this.getAgent(accountId, agentId);
    const top = agent?.version ?? 0;
    const from = Math.min(before ?? top + 1, top + 1) - 1;
    const numbers = range(Math.max(1, from - limit + 1), from + 1).reverse();
    const kept = await this.#getMany<AgentVersion>(numbers.map((n) => versionKey(accountId, agentId, n)));
    // Every version below the record's was written before it: a gap means the read failed.
    if (kept.some((v) => v === undefined))
      throw new StorageUnavailableError({ message: "An agent's versions could not be read whole" });
    const last = numbers.at(-1);
    return { versions: kept as AgentVersion[], next: last !== undefined && last > 1 ? last : null };
  }

  /** Keeps `agent`'s configuration as its version `agent.version`. */
  async #keepVersion(accountId: string, agent: AgentRecord): Promise<void> {
    // A record of the old shape (no version) has none to keep: the service reads it as version 1.
    if (typeof agent.version !== 'number') return;
    const version: AgentVersion = {
      agent_id: agent.agent_id,
      version: agent.version,
      config: agent.config,
      created_at: agent.updated_at,
    };
    await this.#set(versionKey(accountId, agent.agent_id, agent.version), version);
  }

  async deleteAgent(accountId: string, agentId: string): Promise<boolean> {
    const key = `agent:${digest(accountId, agentId)}`;
    const pos = await this.#call(() => this.#keyv.get<number>(`${key}:pos`));
    const record = pos === undefined ? undefined : await this.#call(() => this.#keyv.get<AgentRecord>(key));
    if (pos === undefined || !record) return false;
    // The index entry becomes a tombstone first: from then on the agent is gone from every list.
    await this.#set(`agents:${digest(accountId)}:${pos}`, null);
    await this.#call(() => this.#keyv.delete(key));
    const sessions = `sessions:${digest(accountId, agentId)}`;
    const count = await this.#count(`${sessions}:n`);
    for (let i = 0; i < count; i += BATCH) {
      const ids = await this.#getMany<string>(range(i, Math.min(count, i + BATCH)).map((j) => `${sessions}:${j}`));
      for (const sessionId of new Set(ids.filter((id): id is string => typeof id === 'string')))
        await this.deleteSession({ accountId, agentId, sessionId });
    }
    await this.#call(() =>
      this.#keyv.deleteMany([...range(0, count).map((j) => `${sessions}:${j}`), `${sessions}:n`, `${key}:pos`]),
    );
    await this.#deleteVersions(accountId, agentId, record.version ?? 0);
    return true;
  }

  /**
   * Deletes the versions of a deleted agent: 1 to `top`, and one more (left by an update that failed
   * after writing its version).
   */
  async #deleteVersions(accountId: string, agentId: string, top: number): Promise<void> {
    for (let from = 1; from <= top + 1; from += BATCH) {
      const keys = range(from, Math.min(top + 2, from + BATCH)).map((n) => versionKey(accountId, agentId, n));
      await this.#call(() => this.#keyv.deleteMany(keys));
    }
  }

  /** The agents at `positions` of an account's index, skipping tombstones of deleted ones. */
  async #liveAgents(accountId: string, index: string, positions: number[]): Promise<Map<number, AgentRecord>> {
    const ids = await this.#getMany<string | null>(positions.map((p) => `${index}:${p}`));
    // Every entry below the count was written before the count moved: a gap means the read failed
    // (Keyv's fallback getMany turns errors into gaps). A deleted agent leaves `null`.
    if (ids.some((id) => id === undefined))
      throw new StorageUnavailableError({ message: 'An agent index could not be read whole' });
    const live = positions.flatMap((p, i) => (ids[i] ? [{ p, id: ids[i]! }] : []));
    const agents = await this.#getMany<AgentRecord>(live.map(({ id }) => `agent:${digest(accountId, id)}`));
    if (agents.some((a) => a === undefined))
      throw new StorageUnavailableError({ message: 'An agent could not be read' });
    return new Map(live.flatMap(({ p }, i) => (agents[i] ? [[p, agents[i]!] as const] : [])));
  }

  async getAgent(accountId: string, agentId: string): Promise<AgentRecord | undefined> {
    return this.#call(() => this.#keyv.get<AgentRecord>(`agent:${digest(accountId, agentId)}`));
  }

  async listAgents(accountId: string): Promise<AgentRecord[]> {
    const index = `agents:${digest(accountId)}`;
    const positions = range(0, await this.#count(`${index}:n`));
    return [...(await this.#liveAgents(accountId, index, positions)).values()];
  }

  async appendMessages(session: SessionRef, messages: SessionMessage[], pending?: PendingTurn | null): Promise<void> {
    const first = messages[0]?.created_at ?? pending?.created_at;
    if (messages.length === 0 && pending === undefined) return;
    const key = sessionKey(session);
    await this.#locked(`append:${key}`, async (lease) => {
      const stored = await this.#call(() => this.#keyv.get<SessionMeta>(`${key}:meta`));
      // Clearing the pending turn of a session that does not exist writes nothing.
      if (!stored && first === undefined) return;
      const meta = stored ?? (await this.#register(session, first!));
      // The pending turn first, under a key of its own that no reader sees until the meta points at it.
      const kept = pending === undefined ? pendingOf(meta) : await this.#writePending(key, meta, pending);
      await this.#writeMessages(key, meta.n, messages);
      this.#stillHeld(lease);
      // The meta record is the commit point of both the messages and the pending turn's change.
      const { pending: _inline, pending_seq: _seq, pending_last: _last, ...rest } = meta;
      await this.#set(`${key}:meta`, {
        ...rest,
        n: meta.n + messages.length,
        updated_at: messages.at(-1)?.created_at ?? meta.updated_at,
        ...kept,
      });
      // The turn the meta pointed at before is no longer read: removing it is only tidying up.
      if (pending !== undefined && meta.pending_seq !== undefined)
        await this.#call(() => this.#keyv.delete(pendingKey(key, meta.pending_seq!))).catch(() => false);
    });
  }

  /**
   * Writes `pending` (a turn, or `null` to clear) under a new key when it is a turn; returns the
   * meta fields that point at it.
   */
  async #writePending(key: string, meta: SessionMeta, pending: PendingTurn | null): Promise<PendingFields> {
    const last = meta.pending_last ?? 0;
    if (pending === null) return last ? { pending_last: last } : {};
    await this.#set(pendingKey(key, last + 1), pending);
    return { pending_seq: last + 1, pending_last: last + 1 };
  }

  /** Writes `messages` as the session's messages from position `n` on (past its count: unseen until the meta moves). */
  async #writeMessages(key: string, n: number, messages: SessionMessage[]): Promise<void> {
    for (let i = 0; i < messages.length; i += BATCH) {
      const entries = messages.slice(i, i + BATCH).map((value, j) => ({ key: `${key}:${n + i + j}`, value }));
      // Adapters with a native setMany resolve to nothing and throw on failure (throwOnErrors);
      // Keyv's fallback resolves to one boolean per entry.
      const written: unknown = await this.#call(() => this.#keyv.setMany(entries));
      if (Array.isArray(written) && written.some((ok) => !ok))
        throw new StorageUnavailableError({ message: 'Storage did not confirm a write' });
    }
  }

  async getPendingTurn(session: SessionRef): Promise<PendingTurn | undefined> {
    const key = sessionKey(session);
    let seen: number | undefined;
    // An append may replace the turn between the two reads (and remove the key read): read again then.
    for (let attempt = 0; attempt < 3; attempt++) {
      const meta = await this.#call(() => this.#keyv.get<SessionMeta>(`${key}:meta`));
      const seq = meta?.pending_seq;
      // A record written before pending keys keeps its pending turn inline.
      if (seq === undefined) return meta?.pending ?? undefined;
      if (seq === seen) break;
      const turn = await this.#call(() => this.#keyv.get<PendingTurn>(pendingKey(key, seq)));
      if (turn !== undefined) return turn;
      seen = seq;
    }
    // The key is written before the meta points at it: a miss means the read failed.
    throw new StorageUnavailableError({ message: "A session's pending turn could not be read" });
  }

  async readMessages(session: SessionRef, window: MessageWindow = {}): Promise<SessionMessage[]> {
    const key = sessionKey(session);
    const n = (await this.#call(() => this.#keyv.get<SessionMeta>(`${key}:meta`)))?.n ?? 0;
    const [from, to] =
      'offset' in window
        ? [Math.min(n, window.offset), Math.min(n, window.offset + window.limit)]
        : [window.last === undefined ? 0 : Math.max(0, n - window.last), n];
    const messages = await this.#getMany<SessionMessage>(range(from, to).map((i) => `${key}:${i}`));
    if (messages.some((m) => m === undefined))
      throw new StorageUnavailableError({ message: 'A stored conversation is incomplete' });
    return messages as SessionMessage[];
  }

  async getSession(session: SessionRef): Promise<SessionInfo | undefined> {
    const meta = await this.#call(() => this.#keyv.get<SessionMeta>(`${sessionKey(session)}:meta`));
    return meta && info(meta);
  }

  async listSessions(
    accountId: string,
    agentId: string,
    { limit, before }: { limit: number; before?: number },
  ): Promise<SessionPage> {
    const index = `sessions:${digest(accountId, agentId)}`;
    const n = await this.#count(`${index}:n`);
    const sessions: SessionInfo[] = [];
    let pos = Math.min(before ?? n, n);
    while (pos > 0 && sessions.length < limit) {
      // Read a little more than needed: entries of deleted sessions are skipped.
      const positions = range(Math.max(0, pos - (limit - sessions.length) - 4), pos).reverse();
      const ids = await this.#getMany<string>(positions.map((i) => `${index}:${i}`));
      const found = positions.flatMap((p, j) => (ids[j] === undefined ? [] : [{ p, id: ids[j]! }]));
      const metas = await this.#getMany<SessionMeta>(
        found.map(({ id }) => `${sessionKey({ accountId, agentId, sessionId: id })}:meta`),
      );
      const metaAt = new Map(found.map(({ p }, j) => [p, metas[j]]));
      for (const p of positions) {
        pos = p;
        const meta = metaAt.get(p);
        // An entry whose session was deleted (and maybe started anew elsewhere in the index) is stale.
        if (meta && meta.pos === p) sessions.push(info(meta));
        if (sessions.length === limit) break;
      }
    }
    return { sessions, next: pos > 0 ? pos : null };
  }

  async deleteSession(session: SessionRef): Promise<boolean> {
    const key = sessionKey(session);
    let deleted = false;
    await this.#locked(`append:${key}`, async () => {
      const meta = await this.#call(() => this.#keyv.get<SessionMeta>(`${key}:meta`));
      if (!meta) return;
      // The meta goes first: from then on the session does not exist, whatever happens to its messages.
      await this.#call(() => this.#keyv.delete(`${key}:meta`));
      deleted = true;
      // Every pending turn it may have left: 1 to the last, and one more (left by a failed append).
      const pending = range(1, (meta.pending_last ?? 0) + 2).map((seq) => pendingKey(key, seq));
      const keys = [...range(0, meta.n).map((i) => `${key}:${i}`), ...pending];
      for (let i = 0; i < keys.length; i += BATCH)
        await this.#call(() => this.#keyv.deleteMany(keys.slice(i, i + BATCH)));
    });
    return deleted;
  }

  /** Adds a new session to its agent's index; returns its empty meta. */
  async #register(session: SessionRef, createdAt: string): Promise<SessionMeta> {
    const index = `sessions:${digest(session.accountId, session.agentId)}`;
    let pos = 0;
    await this.#locked(`index:${index}`, async (lease) => {
      pos = await this.#count(`${index}:n`);
      await this.#set(`${index}:${pos}`, session.sessionId);
      this.#stillHeld(lease);
      await this.#set(`${index}:n`, pos + 1);
    });
    return { session_id: session.sessionId, created_at: createdAt, updated_at: createdAt, n: 0, pos };
  }

  // A key record is live only under the digest its id points at (`keyPointer`): moving a record to
  // another digest then takes effect in one write, the pointer's, and a copy left by a move that was
  // cut short is never read.

  async createKey(record: ApiKeyRecord): Promise<void> {
    await this.#set(`apikey:${record.digest}`, record);
    await this.#set(keyPointer(record.key_id), record.digest);
    await this.#locked('index:apikeys', async (lease) => {
      const n = await this.#count('apikeys:n');
      await this.#set(`apikeys:${n}`, record.digest);
      this.#stillHeld(lease);
      await this.#set('apikeys:n', n + 1);
    });
  }

  async findKeyByDigest(keyDigest: string): Promise<ApiKeyRecord | undefined> {
    if (!KEY_DIGEST.test(keyDigest)) return undefined;
    const record = await this.#call(() => this.#keyv.get<ApiKeyRecord>(`apikey:${keyDigest}`));
    if (!record) return undefined;
    return (await this.#call(() => this.#keyv.get<string>(keyPointer(record.key_id)))) === keyDigest
      ? record
      : undefined;
  }

  async getKey(keyId: string): Promise<ApiKeyRecord | undefined> {
    const keyDigest = await this.#call(() => this.#keyv.get<string>(keyPointer(keyId)));
    return keyDigest === undefined ? undefined : this.#call(() => this.#keyv.get<ApiKeyRecord>(`apikey:${keyDigest}`));
  }

  async listKeys(): Promise<ApiKeyRecord[]> {
    const n = await this.#count('apikeys:n');
    const digests = await this.#getMany<string>(range(0, n).map((i) => `apikeys:${i}`));
    if (digests.some((d) => d === undefined))
      throw new StorageUnavailableError({ message: 'The key index could not be read whole' });
    const ids = (await this.#getMany<ApiKeyRecord>(digests.map((d) => `apikey:${d}`))).flatMap((r) =>
      r ? [r.key_id] : [],
    );
    // Each record is read where its id points, which is where a move cut short left the live one.
    const live = await this.#getMany<string>(ids.map(keyPointer));
    const records = await this.#getMany<ApiKeyRecord>(live.flatMap((d) => (d === undefined ? [] : [`apikey:${d}`])));
    return records.filter((r): r is ApiKeyRecord => r !== undefined);
  }

  async updateKey(record: ApiKeyRecord): Promise<boolean> {
    let updated = false;
    // Under the key's lock, so a move cannot carry the record away between the read and the write.
    await this.#locked(`apikey:${digest(record.key_id)}`, async (lease) => {
      const keyDigest = await this.#call(() => this.#keyv.get<string>(keyPointer(record.key_id)));
      const stored =
        keyDigest === undefined
          ? undefined
          : await this.#call(() => this.#keyv.get<ApiKeyRecord>(`apikey:${keyDigest}`));
      if (!stored) return;
      this.#stillHeld(lease);
      await this.#set(`apikey:${keyDigest}`, {
        ...record,
        digest: keyDigest!,
        revoked_at: stored.revoked_at ?? record.revoked_at,
      });
      updated = true;
    });
    return updated;
  }

  async moveKey(keyId: string, from: string, to: string): Promise<boolean> {
    let moved = false;
    await this.#locked(`apikey:${digest(keyId)}`, async (lease) => {
      if ((await this.#call(() => this.#keyv.get<string>(keyPointer(keyId)))) !== from) return;
      const record = await this.#call(() => this.#keyv.get<ApiKeyRecord>(`apikey:${from}`));
      if (!record) return;
      await this.#set(`apikey:${to}`, { ...record, digest: to });
      this.#stillHeld(lease);
      // The move takes effect here; what follows removes what is left under `from`.
      await this.#set(keyPointer(keyId), to);
      moved = true;
      const n = await this.#count('apikeys:n');
      const position = (await this.#getMany<string>(range(0, n).map((i) => `apikeys:${i}`))).indexOf(from);
      if (position >= 0) await this.#set(`apikeys:${position}`, to);
      await this.#call(() => this.#keyv.delete(`apikey:${from}`));
    });
    return moved;
  }

  async getHostSecret(): Promise<string | undefined> {
    return this.#call(() => this.#keyv.get<string>(HOST_SECRET));
  }

  async createHostSecret(candidate: string): Promise<string> {
    let kept = candidate;
    // Keyv has no create-if-absent: the lock (shared by every process on Redis and Postgres) makes
    // the read and the write one step.
    await this.#locked(HOST_SECRET, async (lease) => {
      const existing = await this.getHostSecret();
      if (existing !== undefined) {
        kept = existing;
        return;
      }
      this.#stillHeld(lease);
      await this.#set(HOST_SECRET, candidate);
    });
    return kept;
  }

  async getIdempotency(key: string): Promise<IdempotencyRecord | undefined> {
    return this.#call(() => this.#keyv.get<IdempotencyRecord>(`idempotency:${digest(key)}`));
  }

  async putIdempotency(key: string, record: IdempotencyRecord, ttlMs: number): Promise<void> {
    const ok = await this.#call(() => this.#keyv.set(`idempotency:${digest(key)}`, record, ttlMs));
    if (!ok) throw new StorageUnavailableError({ message: 'Storage did not confirm a write' });
  }

  async deleteIdempotency(key: string): Promise<void> {
    await this.#call(() => this.#keyv.delete(`idempotency:${digest(key)}`));
  }

  async ping(): Promise<void> {
    await this.#call(() => this.#keyv.get('ping'));
  }

  async close(): Promise<void> {
    await this.#keyv.disconnect();
    await this.#locks.close?.();
    await this.#onClose?.();
  }

  async #locked(key: string, work: (lease: Lease) => Promise<void>): Promise<void> {
    const lease = await this.#locks.acquire(key, { waitMs: this.#lockWaitMs });
    try {
      await work(lease);
    } finally {
      await lease.release().catch(() => {
        // An unreleased lease expires by itself; the write itself is complete.
      });
    }
  }

  #stillHeld(lease: Lease): void {
    // Another writer may hold the lock once ours is lost; moving the count then could hide its write.
    // A lease that expires must also stay valid for as long as the count's write may take.
    const expiring = lease.validUntil !== undefined && Date.now() + this.#commandTimeoutMs >= lease.validUntil;
    if (lease.signal.aborted || expiring)
      throw new StorageUnavailableError({ message: 'Lost a storage lock during a write; nothing was stored' });
  }

  async #count(key: string): Promise<number> {
    return (await this.#call(() => this.#keyv.get<number>(key))) ?? 0;
  }

  async #set(key: string, value: unknown): Promise<void> {
    const ok = await this.#call(() => this.#keyv.set(key, value));
    if (!ok) throw new StorageUnavailableError({ message: 'Storage did not confirm a write' });
  }

  async #getMany<T>(keys: string[]): Promise<(T | undefined)[]> {
    const out: (T | undefined)[] = [];
    for (let i = 0; i < keys.length; i += BATCH) {
      const batch = keys.slice(i, i + BATCH);
      out.push(...(await this.#call(() => this.#keyv.getMany<T>(batch))));
    }
    return out;
  }

  #call<T>(fn: () => Promise<T>): Promise<T> {
    return storageCall(fn, this.#commandTimeoutMs, this.#onTimeout);
  }
}

/** What the store keeps about a session besides its messages. */
interface SessionMeta {
  session_id: string;
  created_at: string;
  updated_at: string;
  /** How many messages it has. */
  n: number;
  /** Its position in the agent's session index. */
  pos: number;
  /**
   * Which key holds the turn that waits for approval of tool calls (`<session>:pending:<seq>`), if
   * any: the pointer commits with the count, the turn itself (maybe megabytes of images) is read only
   * by `getPendingTurn`.
   */
  pending_seq?: number;
  /** The highest seq a pending turn was written under: the next one takes the one after it. */
  pending_last?: number;
  /** A pending turn kept inline, as records written before pending keys had it: read as before. */
  pending?: PendingTurn;
}

/** The meta fields about the pending turn. */
type PendingFields = Pick<SessionMeta, 'pending_seq' | 'pending_last' | 'pending'>;

/** `meta`'s pending fields, unchanged. */
const pendingOf = ({ pending_seq, pending_last, pending }: SessionMeta): PendingFields => ({
  ...(pending_seq !== undefined && { pending_seq }),
  ...(pending_last !== undefined && { pending_last }),
  ...(pending && { pending }),
});

const info = (meta: SessionMeta): SessionInfo => ({
  session_id: meta.session_id,
  created_at: meta.created_at,
  updated_at: meta.updated_at,
  message_count: meta.n,
});

function versionKey(accountId: string, agentId: string, version: number): string {
  return `agent-version:${digest(accountId, agentId)}:${version}`;
}

function sessionKey({ accountId, agentId, sessionId }: SessionRef): string {
  return `session:${digest(accountId, agentId, sessionId)}`;
}

/** Where pending turn `seq` of the session under `key` is kept. */
function pendingKey(key: string, seq: number): string {
  return `${key}:pending:${seq}`;
}

function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from) }, (_, i) => from + i);
}
