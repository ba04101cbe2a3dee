import type { RedisClientType } from '@keyv/redis';

/** Options of {@link RedisConnection}. */
export interface RedisConnectionOptions {
  /** Makes a new, unconnected client (node-redis `createClient`). */
  create: () => RedisClientType;
  /** Receives connection errors. */
  onError: (error: unknown) => void;
  /** Called with the new client after a reset, so its users can switch to it. */
  onReset?: (client: RedisClientType) => void;
}

/**
 * One Redis client that is replaced when it stops answering. node-redis reconnects by itself when
 * its socket closes, but a connection that silently stops answering (a network partition, a
 * black-holed address) keeps the socket open; commands then never settle. When a command misses its
 * deadline, `reset()` drops the client (failing whatever it still has queued) and connects a fresh one.
 */
export class RedisConnection {
  #client: RedisClientType;
  #lastReset = 0;
  readonly #options: RedisConnectionOptions;
  #closed = false;

  constructor(options: RedisConnectionOptions) {
    this.#options = options;
    this.#client = this.#open();
  }

  /** The current client. */
  get client(): RedisClientType {
    return this.#client;
  }

  /** Connects the first client; rejects when Redis cannot be reached. */
  async connect(): Promise<void> {
    if (!this.#client.isOpen) await this.#client.connect();
  }

  /** Replaces the client (at most once a second). */
  reset(): void {
    if (this.#closed || Date.now() - this.#lastReset < 1_000) return;
    this.#lastReset = Date.now();
    const old = this.#client;
    this.#client = this.#open();
    this.#client.connect().catch(this.#options.onError);
    this.#options.onReset?.(this.#client);
    try {
      old.destroy();
    } catch {
      // Already closed.
    }
  }

  /** Closes the client; pending commands fail at once rather than holding up the shutdown. */
  close(): void {
    this.#closed = true;
    try {
      this.#client.destroy();
    } catch {
      // Already closed.
    }
  }

  #open(): RedisClientType {
    const client = this.#options.create();
    client.on('error', this.#options.onError);
    return client;
  }
}
