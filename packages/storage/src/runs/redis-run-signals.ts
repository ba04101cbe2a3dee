import { AgentHostError, StorageUnavailableError } from '@agenthost/core';
import { withDeadline } from '../deadline.js';

/** What a channel's messages are handed to. */
type MessageListener = (message: string, channel: string) => void;

/** The commands of a node-redis client (`client.duplicate()`) that {@link RedisRunSignals} uses. */
export interface RedisSubscriber {
  connect(): Promise<unknown>;
  subscribe(channel: string, listener: MessageListener): Promise<unknown>;
  unsubscribe(channel: string, listener: MessageListener): Promise<unknown>;
  destroy(): void;
  on(event: 'error', listener: (error: unknown) => void): unknown;
}

/** Options of {@link RedisRunSignals}. */
export interface RedisRunSignalsOptions {
  /** Makes the (unconnected) client that subscribes; it is connected on the first subscription. */
  create: () => RedisSubscriber;
  /** Bound on a subscription, in ms. */
  commandTimeoutMs: number;
  /** Receives the connection's errors. */
  onError: (error: unknown) => void;
}

/** One subscribed channel: its own listener on the client (node-redis counts listeners per function). */
interface Channel {
  listeners: Set<(message: string) => void>;
  dispatch: MessageListener;
  ready: Promise<unknown>;
  dropped: boolean;
}

/**
 * The channels this process listens to, on one connection of its own (a subscribed connection can
 * run nothing else). The connection is opened on the first subscription; node-redis reconnects it
 * and subscribes its channels again by itself, and its pings and socket timeout notice a connection
 * that stopped answering. Each channel is subscribed once, however many listeners it has.
 */
export class RedisRunSignals {
  readonly #options: RedisRunSignalsOptions;
  readonly #channels = new Map<string, Channel>();
  #client: Promise<RedisSubscriber> | undefined;
  #raw: RedisSubscriber | undefined;
  #closed = false;

  constructor(options: RedisRunSignalsOptions) {
    this.#options = options;
  }

  /**
   * Calls `listener` with each message on `channel` until the returned function is called.
   * @throws StorageUnavailableError when the subscription is not confirmed within the command bound.
   */
  async subscribe(channel: string, listener: (message: string) => void): Promise<() => Promise<void>> {
    if (this.#closed) throw new StorageUnavailableError({ message: 'The run store is closed' });
    const entry = this.#channels.get(channel) ?? this.#open(channel);
    entry.listeners.add(listener);
    try {
      await withDeadline(() => entry.ready, this.#options.commandTimeoutMs);
    } catch (error) {
      await this.#remove(channel, entry, listener);
      throw AgentHostError.isInstance(error) ? error : new StorageUnavailableError({ cause: error });
    }
    let removed = false;
    return async () => {
      if (removed) return;
      removed = true;
      await this.#remove(channel, entry, listener);
    };
  }

  /** Closes the connection; no listener is called after this. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#channels.clear();
    this.#client = undefined;
    try {
      this.#raw?.destroy();
    } catch {
      // Already closed.
    }
  }

  #open(channel: string): Channel {
    const entry: Channel = { listeners: new Set(), dispatch: () => {}, ready: Promise.resolve(), dropped: false };
    entry.dispatch = (message) => {
      // A subscription confirmed after its only listener gave up on it: nobody wants it.
      if (entry.listeners.size === 0) return void this.#drop(channel, entry);
      for (const listener of [...entry.listeners]) {
        try {
          listener(message);
        } catch (error) {
          this.#options.onError(error);
        }
      }
    };
    entry.ready = this.#connected().then((client) => client.subscribe(channel, entry.dispatch));
    entry.ready.catch(() => {
      if (this.#channels.get(channel) === entry) this.#channels.delete(channel);
    });
    this.#channels.set(channel, entry);
    return entry;
  }

  async #remove(channel: string, entry: Channel, listener: (message: string) => void): Promise<void> {
    entry.listeners.delete(listener);
    if (entry.listeners.size === 0) await this.#drop(channel, entry);
  }

  /** Unsubscribes a channel that has no listeners left (once), best effort: a failure only leaves it subscribed. */
  async #drop(channel: string, entry: Channel): Promise<void> {
    if (entry.dropped) return;
    entry.dropped = true;
    if (this.#channels.get(channel) === entry) this.#channels.delete(channel);
    const unsubscribe = async () => {
      await entry.ready;
      const client = await this.#client;
      await client?.unsubscribe(channel, entry.dispatch);
    };
    await withDeadline(unsubscribe, this.#options.commandTimeoutMs).catch(() => {});
  }

  /** The subscribing client, connected (again, after a failed first connection). */
  #connected(): Promise<RedisSubscriber> {
    if (this.#client) return this.#client;
    const client = this.#options.create();
    client.on('error', this.#options.onError);
    this.#raw = client;
    const connecting = client.connect().then(
      () => client,
      (error: unknown) => {
        if (this.#client === connecting) this.#client = undefined;
        client.destroy();
        throw error;
      },
    );
    this.#client = connecting;
    return connecting;
  }
}
