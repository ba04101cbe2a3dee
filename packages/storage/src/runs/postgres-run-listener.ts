import { type RunSignal, StorageUnavailableError } from '@agenthost/core';
import type pg from 'pg';
import { withDeadline } from '../deadline.js';

/** Options of {@link PostgresRunListener}. */
export interface PostgresRunListenerOptions {
  /** Opens a new connection (with an error listener already on it, so no error can go unheard). */
  connect: () => Promise<pg.Client>;
  /** The notification channel (an identifier of at most 63 bytes). */
  channel: string;
  /** Bound on LISTEN and on each ping, in ms. */
  commandTimeoutMs: number;
  /** Receives the connection's errors. */
  onError: (error: unknown) => void;
  /** How often the connection is checked while open, in ms (default 5 000). */
  pingMs?: number;
}

type Listener = (signal: RunSignal) => void;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Closes a client at once (a connection that stopped answering would hold up a polite end). */
function destroy(client: pg.Client): void {
  client.removeAllListeners();
  client.on('error', () => {});
  (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
  void client.end().catch(() => {});
}

/**
 * The run signals this process listens to, on one dedicated connection that LISTENs on the store's
 * channel; each notification's payload is `[run id, signal]` (JSON). The connection opens on the
 * first subscription. When it fails, ends or misses a ping, it is dropped and opened again with a
 * growing pause (0.1 s doubling to 5 s) while anyone listens; its errors never reach the process.
 * Notifications sent while it is down are lost: signals are hints, and readers also poll.
 */
export class PostgresRunListener {
  readonly #options: PostgresRunListenerOptions;
  readonly #listeners = new Map<string, Set<Listener>>();
  #client: pg.Client | undefined;
  #connecting: Promise<void> | undefined;
  #retry: NodeJS.Timeout | undefined;
  #ping: NodeJS.Timeout | undefined;
  #failures = 0;
  #pinging = false;
  #closed = false;

  constructor(options: PostgresRunListenerOptions) {
    this.#options = options;
  }

  /**
   * Calls `listener` with each signal about `runId` until the returned function is called.
   * @throws StorageUnavailableError when the connection is not listening within the command bound.
   */
  async listen(runId: string, listener: Listener): Promise<() => void> {
    if (this.#closed) throw new StorageUnavailableError({ message: 'The run store is closed' });
    const set = this.#listeners.get(runId) ?? new Set();
    this.#listeners.set(runId, set);
    set.add(listener);
    const remove = () => {
      set.delete(listener);
      if (set.size === 0 && this.#listeners.get(runId) === set) this.#listeners.delete(runId);
    };
    try {
      await this.#ready(Date.now() + this.#options.commandTimeoutMs);
    } catch (error) {
      remove();
      throw error;
    }
    return remove;
  }

  /** Closes the connection; no listener is called after this. */
  close(): void {
    this.#closed = true;
    this.#listeners.clear();
    clearTimeout(this.#retry);
    clearInterval(this.#ping);
    if (this.#client) destroy(this.#client);
    this.#client = undefined;
  }

  /** Waits until the connection listens (opening it if nobody is), until `deadline`. */
  async #ready(deadline: number): Promise<void> {
    for (;;) {
      if (this.#client) return;
      if (this.#closed) throw new StorageUnavailableError({ message: 'The run store is closed' });
      if (!this.#connecting && !this.#retry) this.#connect();
      const left = deadline - Date.now();
      if (left <= 0) throw new StorageUnavailableError({ message: 'Run signals are unavailable; retry later' });
      const pause = sleep(Math.min(left, 50));
      await (this.#connecting ? Promise.race([this.#connecting, pause]) : pause);
    }
  }

  #connect(): void {
    this.#connecting = this.#open().finally(() => {
      this.#connecting = undefined;
    });
  }

  async #open(): Promise<void> {
    let client: pg.Client | undefined;
    try {
      client = await this.#options.connect();
      const opened = client;
      opened.on('error', (error) => this.#lost(opened, error));
      opened.on('end', () => this.#lost(opened, new Error('the run signal connection ended')));
      opened.on('notification', ({ channel, payload }) => this.#dispatch(channel, payload));
      await withDeadline(() => opened.query(`LISTEN "${this.#options.channel}"`), this.#options.commandTimeoutMs);
      if (this.#closed) return destroy(opened);
      this.#client = opened;
      this.#failures = 0;
      this.#ping ??= setInterval(() => this.#check(), this.#options.pingMs ?? 5_000);
      this.#ping.unref();
    } catch (error) {
      if (client) destroy(client);
      this.#options.onError(error);
      this.#again();
    }
  }

  /** Drops `client` when it is the listening one, and opens another while anyone listens. */
  #lost(client: pg.Client, error: unknown): void {
    if (client !== this.#client) return;
    this.#client = undefined;
    destroy(client);
    this.#options.onError(error);
    this.#again();
  }

  /** Opens the connection again after a growing pause, if anyone still listens (else on the next subscription). */
  #again(): void {
    if (this.#closed || this.#retry || this.#listeners.size === 0) return;
    const delay = Math.min(100 * 2 ** this.#failures, 5_000);
    this.#failures++;
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      if (!this.#closed && !this.#client && !this.#connecting && this.#listeners.size > 0) this.#connect();
    }, delay);
    this.#retry.unref();
  }

  /** Pings the connection: one that fails or does not answer in time is dropped. */
  #check(): void {
    const client = this.#client;
    if (!client || this.#pinging) return;
    this.#pinging = true;
    withDeadline(() => client.query('SELECT 1'), this.#options.commandTimeoutMs)
      .catch((error: unknown) => this.#lost(client, error))
      .finally(() => {
        this.#pinging = false;
      });
  }

  #dispatch(channel: string, payload: string | undefined): void {
    if (channel !== this.#options.channel || !payload) return;
    let runId: unknown;
    let signal: RunSignal;
    try {
      [runId, signal] = JSON.parse(payload) as [unknown, RunSignal];
    } catch {
      return;
    }
    for (const listener of [...(this.#listeners.get(String(runId)) ?? [])]) {
      try {
        listener(signal);
      } catch (error) {
        this.#options.onError(error);
      }
    }
  }
}
