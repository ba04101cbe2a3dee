import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import {
  type AgentStore,
  type ApiKeyStore,
  type HostSecretStore,
  type IdempotencyStore,
  InProcessRunStore,
  inProcessLocks,
  type LockProvider,
  type RunStore,
} from '@agenthost/core';
import { withDeadline } from './deadline.js';
import { deserializeKeyv } from './keyv-deserialize.js';
import { KeyvStore } from './keyv-store.js';
import { postgresLocks } from './locks/postgres-locks.js';
import { type RedisLockClient, redisLocks } from './locks/redis-locks.js';
import { MemoryStore } from './memory-store.js';
import { loadNodeSqlite, NodeSqliteAdapter } from './node-sqlite-adapter.js';
import { RedisConnection } from './redis-connection.js';
import { PostgresRunStore } from './runs/postgres-run-store.js';
import type { RedisSubscriber } from './runs/redis-run-signals.js';
import { RedisRunStore } from './runs/redis-run-store.js';

/** What {@link openStore} opened. */
export interface OpenedStore {
  /** `memory`, `sqlite`, `redis` or `postgres`. */
  kind: 'memory' | 'sqlite' | 'redis' | 'postgres';
  /** The location without any password, for logs and banners. */
  description: string;
  /** Agents, conversations, API key records, idempotency records and the generated deployment secret. */
  store: AgentStore & ApiKeyStore & IdempotencyStore & HostSecretStore;
  /**
   * Locks that reach every process sharing this store: Redis and Postgres locks for those stores,
   * in-process locks for memory and SQLite (which are for a single process). Pass them to
   * `AgentService` so runs of one session take turns across servers.
   */
  locks: LockProvider;
  /**
   * Background runs, their events and the signals between servers: on Redis and PostgreSQL shared by
   * every server on the store; for memory and SQLite kept in this process (`InProcessRunStore`).
   * Pass it to `AgentService` as `runs`.
   */
  runs: RunStore;
  /**
   * For Redis stores: runs a raw command on the store's connection (for example for shared rate-limit
   * counters). Bounded by the store's command timeout (then a `StorageUnavailableError`); Redis's own
   * errors (such as `NOSCRIPT`) are passed on unchanged.
   */
  redisCommand?: (args: string[]) => Promise<unknown>;
  /** Closes the store and its connections. */
  close(): Promise<void>;
}

/** Options of {@link openStore}. */
export interface OpenStoreOptions {
  /** Prefix of every key (default `agenthost`). */
  namespace?: string;
  /** Bound on opening a connection, in ms (default 2 000). */
  connectTimeoutMs?: number;
  /** Bound on one command or query, in ms (default 5 000). */
  commandTimeoutMs?: number;
  /** Lease of a Redis lock, in ms; renewed while held (default 15 000). */
  lockLeaseMs?: number;
  /** Receives connection errors that happen between requests (default: ignored; requests see them as 503s). */
  onError?: (error: unknown) => void;
  /** Turns off cross-process locking: in-process locks only. Loses writes when servers share a store; for tests and demos. */
  unsafeInProcessLocksOnly?: boolean;
}

/** Supported store locations, for messages. */
export const STORE_URL_FORMS =
  'memory, sqlite://<path>, redis://[user:password@]host[:port][/db], rediss://..., postgres://[user[:password]@]host[:port]/database';

function redact(url: URL): string {
  if (url.password) url.password = '***';
  return url.toString();
}

async function importOptional<T>(name: string, scheme: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (
      (error as NodeJS.ErrnoException)?.code === 'ERR_MODULE_NOT_FOUND' ||
      (error as NodeJS.ErrnoException)?.code === 'MODULE_NOT_FOUND'
    ) {
      throw new Error(
        `${scheme} stores need the package ${name}: install it next to @agenthost/storage (npm install ${name})`,
      );
    }
    throw error;
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** The settings every opener needs, resolved from {@link OpenStoreOptions}. */
interface OpenContext {
  location: string;
  url: URL;
  namespace: string;
  connectTimeoutMs: number;
  commandTimeoutMs: number;
  onError: (error: unknown) => void;
  options: OpenStoreOptions;
  Keyv: typeof import('keyv').default;
  /** The cross-process locks given, or in-process ones when those are turned off. */
  shared: (locks: LockProvider) => LockProvider;
}

/** The in-memory store: one process, in-process locks and runs, no connection to close. */
function openMemoryStore(): OpenedStore {
  const runs = new InProcessRunStore();
  return {
    kind: 'memory',
    description: 'memory',
    store: new MemoryStore(),
    locks: inProcessLocks(),
    runs,
    close: () => runs.close(),
  };
}

/** Parses a store location other than `memory`, with a message that lists the supported forms. */
function parseLocation(location: string): URL {
  try {
    return new URL(location);
  } catch {
    throw new Error(`"${location}" is not a store location; use one of: ${STORE_URL_FORMS}`);
  }
}

/** Opens a `sqlite://` store on Node's own SQLite, creating the file's directory. */
async function openSqliteStore({ location, namespace, onError, Keyv }: OpenContext): Promise<OpenedStore> {
  const path = location.slice('sqlite://'.length);
  if (!path) throw new Error('sqlite:// needs a file path, e.g. sqlite://./.agenthost/agenthost.sqlite');
  await mkdir(dirname(path), { recursive: true });
  const adapter = new NodeSqliteAdapter(loadNodeSqlite(), { filename: path, table: 'agenthost_kv' });
  const keyv = new Keyv({ store: adapter, namespace, throwOnErrors: true, deserialize: deserializeKeyv });
  keyv.on('error', onError);
  // One SQLite file serves one process, so in-process locks are the shared ones.
  const locks = inProcessLocks();
  const store = new KeyvStore(keyv, { locks });
  // Background runs live in the process too: they run on it, and a restart ends them anyway.
  const runs = new InProcessRunStore();
  const close = async () => {
    await runs.close();
    await store.close();
  };
  return { kind: 'sqlite', description: `sqlite://${path}`, store, locks, runs, close };
}

/**
 * Opens a `redis://` or `rediss://` store: one bounded, self-reconnecting connection shared by the
 * Keyv adapter, the locks, the run store and {@link OpenedStore.redisCommand}, and a second one
 * (opened on the first subscription) that listens for run signals.
 */
async function openRedisStore(context: OpenContext): Promise<OpenedStore> {
  const { location, url, namespace, connectTimeoutMs, commandTimeoutMs, onError, options, Keyv, shared } = context;
  const { default: KeyvRedis, createClient } = await importOptional(
    '@keyv/redis',
    'redis://',
    () => import('@keyv/redis'),
  );
  let adapter: InstanceType<typeof KeyvRedis> | undefined;
  const connection = new RedisConnection({
    create: () =>
      createClient({
        url: location,
        disableOfflineQueue: true,
        // No `commandOptions.timeout`: node-redis would give every command an `AbortSignal.timeout`,
        // whose timer nothing clears, so each command's signal and timer would live for the whole
        // timeout after its answer (at a few hundred runs a second, tens of thousands of them, all
        // promoted to the old generation). Every command here is bounded by `withDeadline` instead,
        // whose timer is cleared when the answer comes.
        // A PING each second while idle; a socket that then hears nothing for 3 s is closed and
        // reconnected (a PING that gets no answer is not sent again, so the socket goes quiet).
        pingInterval: 1_000,
        socket: {
          connectTimeout: connectTimeoutMs,
          socketTimeout: 3_000,
          reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 2_000),
        },
      }) as never,
    onError,
    onReset: (client) => {
      if (adapter) adapter.client = client as never;
    },
  });
  try {
    await withTimeout(connection.connect(), connectTimeoutMs * 2, `Redis at ${redact(url)}`);
  } catch (error) {
    connection.close();
    throw new Error(`cannot reach the store at ${redact(url)}: ${(error as Error).message}`, { cause: error });
  }
  adapter = new KeyvRedis(connection.client as never, { throwOnErrors: true, connectionTimeout: connectTimeoutMs });
  const keyv = new Keyv({
    store: adapter,
    namespace,
    useKeyPrefix: false,
    throwOnErrors: true,
    deserialize: deserializeKeyv,
  });
  keyv.on('error', onError);
  // A command that misses its deadline means the connection stopped answering: replace it.
  const onTimeout = () => connection.reset();
  const locks = shared(
    redisLocks(() => connection.client as unknown as RedisLockClient, {
      prefix: `${namespace}:lock:`,
      commandTimeoutMs,
      onTimeout,
      ...(options.lockLeaseMs && { leaseMs: options.lockLeaseMs }),
    }),
  );
  const store = new KeyvStore(keyv, { locks, commandTimeoutMs, onTimeout });
  const runs = new RedisRunStore({
    client: () => connection.client,
    // Its own connection, with the same settings: a subscribed connection can run nothing else.
    subscriber: () => connection.client.duplicate() as unknown as RedisSubscriber,
    namespace,
    commandTimeoutMs,
    onTimeout,
    onError,
  });
  return {
    kind: 'redis',
    description: redact(url),
    store,
    locks,
    runs,
    // Bounded, but Redis's own errors pass unchanged: rate-limit-redis reloads its script on `NOSCRIPT`.
    redisCommand: (args) => withDeadline(() => connection.client.sendCommand(args), commandTimeoutMs, onTimeout),
    close: async () => {
      await runs.close();
      await withTimeout(store.close(), commandTimeoutMs, 'Closing the Redis store').catch(() => {});
      connection.close();
    },
  };
}

/**
 * Opens a `postgres://` or `postgresql://` store: a pool of our own (with an error listener) for the
 * Keyv adapter and the run store, their tables created if missing, advisory locks on a dedicated
 * connection, and another that listens for run signals.
 */
async function openPostgresStore(context: OpenContext): Promise<OpenedStore> {
  const { location, url, namespace, connectTimeoutMs, commandTimeoutMs, onError, Keyv, shared } = context;
  const { default: pg } = await importOptional('pg', 'postgres://', () => import('pg'));
  const { KeyvPostgres } = await importOptional('@keyv/postgres', 'postgres://', () => import('@keyv/postgres'));
  const settings = {
    connectionString: location,
    connectionTimeoutMillis: connectTimeoutMs,
    query_timeout: commandTimeoutMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    // Ask the database to notice a client that vanished (a crashed host, a partition) within
    // about 25 s, so the advisory locks of a dead server are freed.
    options: '-c tcp_keepalives_idle=10 -c tcp_keepalives_interval=5 -c tcp_keepalives_count=3',
  };
  const pool = new pg.Pool({ ...settings, max: 10 });
  // Without a listener, an idle connection's error (a database restart) would crash the process.
  pool.on('error', onError);
  const table = 'agenthost_kv';
  const connect = async () => {
    const client = new pg.Client(settings);
    client.on('error', onError);
    await client.connect();
    return client;
  };
  let runs: PostgresRunStore;
  try {
    await pool
      .query(`CREATE TABLE IF NOT EXISTS ${table}(key VARCHAR(255) PRIMARY KEY, value TEXT)`)
      .catch((error: { code?: string }) => {
        // Two servers creating the table at once: the loser sees a unique violation; the table exists.
        if (error?.code !== '23505') throw error;
      });
    runs = await PostgresRunStore.open(pool, { connect, namespace, commandTimeoutMs, onError });
  } catch (error) {
    await pool.end().catch(() => {});
    throw new Error(`cannot reach the store at ${redact(url)}: ${(error as Error).message}`, { cause: error });
  }
  // @keyv/postgres keeps a module-wide pool without an error listener; this one is ours.
  class PooledKeyvPostgres extends KeyvPostgres {
    override async connect() {
      return async (sql: string, values?: unknown) => (await pool.query(sql, values as unknown[])).rows;
    }
    override async disconnect() {
      await pool.end();
    }
  }
  const keyv = new Keyv({
    store: new PooledKeyvPostgres({ uri: location, table }),
    namespace,
    throwOnErrors: true,
    deserialize: deserializeKeyv,
  });
  keyv.on('error', onError);
  const locks = shared(postgresLocks(connect, { commandTimeoutMs }));
  const store = new KeyvStore(keyv, { locks, commandTimeoutMs });
  const close = async () => {
    await runs.close();
    await store.close();
  };
  return { kind: 'postgres', description: redact(url), store, locks, runs, close };
}

/**
 * Opens a store from a location string: `memory`, `sqlite://path/to/file.sqlite` (Node's own SQLite,
 * nothing to install), `redis://...`, `rediss://...`, or `postgres://...`. The Keyv adapter of the scheme (`@keyv/redis`,
 * `@keyv/postgres` with `pg`) must be installed; only the one used is loaded.
 *
 * Connections are bounded (connect and command timeouts, no offline queue), so an outage turns into
 * `StorageUnavailableError`s within seconds instead of hanging, and they reconnect by themselves.
 *
 * @throws Error when the location is malformed, its package is missing, or the store cannot be reached now.
 */
export async function openStore(location: string, options: OpenStoreOptions = {}): Promise<OpenedStore> {
  const namespace = options.namespace ?? 'agenthost';
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(namespace))
    throw new Error('the store namespace must be 1-64 characters of letters, digits, "_" or "-"');
  if (location === 'memory') return openMemoryStore();
  const url = parseLocation(location);
  const { default: Keyv } = await importOptional('keyv', url.protocol, () => import('keyv'));
  const context: OpenContext = {
    location,
    url,
    namespace,
    connectTimeoutMs: options.connectTimeoutMs ?? 2_000,
    commandTimeoutMs: options.commandTimeoutMs ?? 5_000,
    onError: options.onError ?? (() => {}),
    options,
    Keyv,
    shared: (locks) => (options.unsafeInProcessLocksOnly ? inProcessLocks() : locks),
  };
  switch (url.protocol) {
    case 'sqlite:':
      return openSqliteStore(context);
    case 'redis:':
    case 'rediss:':
      return openRedisStore(context);
    case 'postgres:':
    case 'postgresql:':
      return openPostgresStore(context);
    default:
      throw new Error(`unsupported store "${url.protocol}//"; use one of: ${STORE_URL_FORMS}`);
  }
}
