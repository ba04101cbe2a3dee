import { createHash } from 'node:crypto';
import {
  AgentHostError,
  StorageUnavailableError,
  inProcessLocks,
  type AgentRecord,
  type AgentStore,
  type Lease,
  type LockProvider,
  type SessionMessage,
  type SessionRef,
} from '@agenthost/core';
import type Keyv from 'keyv';

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
}

// Keys hash every caller-supplied part: bounded length (Postgres keys are VARCHAR(255)), no
// separator can make two different (account, agent, session) triples collide, and no id appears
// in the store's key space in clear.
const digest = (...parts: string[]) => createHash('sha256').update(JSON.stringify(parts)).digest('base64url');
const BATCH = 500;

/**
 * An {@link AgentStore} over any Keyv instance: Keyv's in-memory Map, SQLite, Redis, Postgres, or any
 * other Keyv adapter. Create the Keyv instance with `throwOnErrors: true`, or an outage would look like
 * missing data (the `openStore` helper does this).
 *
 * Layout: each agent under its own key; per account an index of agent ids (`n` and one key per
 * position); per session a message count and one key per message. Reading the last N messages reads
 * N + 1 keys whatever the session's length, and listing an account reads its own agents only.
 * A write stores the items first and moves the counter last, under a lock, so a failed write is
 * invisible and a concurrent one cannot overwrite it.
 */
export class KeyvStore implements AgentStore {
  readonly #keyv: Keyv;
  readonly #locks: LockProvider;
  readonly #lockWaitMs: number;
  readonly #onClose: (() => Promise<void>) | undefined;

  constructor(keyv: Keyv, options: KeyvStoreOptions = {}) {
    this.#keyv = keyv;
    this.#locks = options.locks ?? inProcessLocks();
    this.#lockWaitMs = options.lockWaitMs ?? 10_000;
    this.#onClose = options.onClose;
  }

  async createAgent(accountId: string, agent: AgentRecord): Promise<void> {
    const index = `agents:${digest(accountId)}`;
    await this.#set(`agent:${digest(accountId, agent.agent_id)}`, agent);
    await this.#locked(`index:${index}`, async (lease) => {
      const n = await this.#count(`${index}:n`);
      await this.#set(`${index}:${n}`, agent.agent_id);
      this.#stillHeld(lease);
      await this.#set(`${index}:n`, n + 1);
    });
  }

  async getAgent(accountId: string, agentId: string): Promise<AgentRecord | undefined> {
    return this.#call(() => this.#keyv.get<AgentRecord>(`agent:${digest(accountId, agentId)}`));
  }

  async listAgents(accountId: string): Promise<AgentRecord[]> {
    const index = `agents:${digest(accountId)}`;
    const n = await this.#count(`${index}:n`);
    const ids = await this.#getMany<string>(range(0, n).map((i) => `${index}:${i}`));
    const agents = await this.#getMany<AgentRecord>(ids.flatMap((id) => (id === undefined ? [] : [`agent:${digest(accountId, id)}`])));
    return agents.filter((a): a is AgentRecord => a !== undefined);
  }

  async appendMessages(session: SessionRef, messages: SessionMessage[]): Promise<void> {
    if (messages.length === 0) return;
    const key = sessionKey(session);
    await this.#locked(`append:${key}`, async (lease) => {
      const n = await this.#count(`${key}:n`);
      for (let i = 0; i < messages.length; i += BATCH) {
        const entries = messages.slice(i, i + BATCH).map((value, j) => ({ key: `${key}:${n + i + j}`, value }));
        // Adapters with a native setMany resolve to nothing and throw on failure (throwOnErrors);
        // Keyv's fallback resolves to one boolean per entry.
        const stored: unknown = await this.#call(() => this.#keyv.setMany(entries));
        if (Array.isArray(stored) && stored.some((ok) => !ok)) throw new StorageUnavailableError({ message: 'Storage did not confirm a write' });
      }
      this.#stillHeld(lease);
      await this.#set(`${key}:n`, n + messages.length);
    });
  }

  async readMessages(session: SessionRef, options: { last?: number } = {}): Promise<SessionMessage[]> {
    const key = sessionKey(session);
    const n = await this.#count(`${key}:n`);
    const from = options.last === undefined ? 0 : Math.max(0, n - options.last);
    const messages = await this.#getMany<SessionMessage>(range(from, n).map((i) => `${key}:${i}`));
    if (messages.some((m) => m === undefined)) throw new StorageUnavailableError({ message: 'A stored conversation is incomplete' });
    return messages as SessionMessage[];
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
    // Another writer may hold the lock once ours is lost; moving the counter now could hide its write.
    if (lease.signal.aborted) throw new StorageUnavailableError({ message: 'Lost a storage lock during a write; nothing was stored' });
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

  async #call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      if (AgentHostError.isInstance(error)) throw error;
      throw new StorageUnavailableError({ cause: error });
    }
  }
}

function sessionKey({ accountId, agentId, sessionId }: SessionRef): string {
  return `session:${digest(accountId, agentId, sessionId)}`;
}

function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from) }, (_, i) => from + i);
}
