import { EventEmitter } from 'node:events';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { KeyvStoreAdapter, StoredData } from 'keyv';

/** Options of {@link NodeSqliteAdapter}. */
export interface NodeSqliteAdapterOptions {
  /** The database file (created if missing), or `:memory:`. */
  filename: string;
  /** The table (default `keyv`); created if missing. */
  table?: string;
  /**
   * How long a statement waits for another process's write lock, in ms (default 1 000). The wait
   * blocks the calling thread: keep it short (one server per file; a CLI holds the lock briefly).
   */
  busyTimeoutMs?: number;
}

const TABLE = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

let loaded: typeof import('node:sqlite') | undefined;

/**
 * Loads `node:sqlite`. On Node 22 it still announces itself as experimental on first load; that one
 * warning is not shown (it is stable enough for this use, and Node 24.15 and later no longer warn).
 * The load is synchronous, so nothing else can run while the warning is held back.
 */
export function loadNodeSqlite(): typeof import('node:sqlite') {
  if (loaded) return loaded;
  const emit = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    if (String(warning).includes('SQLite is an experimental feature')) return;
    (emit as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    loaded = process.getBuiltinModule('node:sqlite');
  } finally {
    process.emitWarning = emit;
  }
  return loaded;
}

/**
 * A Keyv store adapter over Node's own SQLite (`node:sqlite`): no native module to build. The table
 * has the layout of `@keyv/sqlite` (`key VARCHAR(255) PRIMARY KEY, value TEXT`), so its files keep
 * working, plus an `expires` column (added to older files) so that expired values are purged:
 * once when opened and then every ten minutes.
 *
 * SQLite calls are synchronous and run on the calling thread; each is a single-row statement on an
 * indexed key, in write-ahead-log mode, which keeps them in the tens of microseconds.
 */
export class NodeSqliteAdapter extends EventEmitter implements KeyvStoreAdapter {
  readonly opts: { dialect: 'sqlite'; filename: string; table: string };
  namespace?: string | undefined;
  readonly #db: DatabaseSync;
  readonly #statements: Record<'get' | 'set' | 'delete' | 'clear' | 'purge', StatementSync>;
  readonly #iterateSql: string;
  readonly #purger: NodeJS.Timeout;

  constructor(
    sqlite: typeof import('node:sqlite'),
    { filename, table = 'keyv', busyTimeoutMs = 1_000 }: NodeSqliteAdapterOptions,
  ) {
    super();
    if (!TABLE.test(table)) throw new TypeError(`NodeSqliteAdapter: "${table}" is not a table name`);
    this.opts = { dialect: 'sqlite', filename, table };
    this.#db = new sqlite.DatabaseSync(filename, { timeout: busyTimeoutMs });
    // Write-ahead logging: a committed write survives a crash of the process, readers do not block
    // the writer, and a write costs one append instead of rewriting pages.
    this.#db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL');
    this.#db.exec(`CREATE TABLE IF NOT EXISTS ${table} (key VARCHAR(255) PRIMARY KEY, value TEXT, expires INTEGER)`);
    this.#addExpires(table);
    const prepare = (sql: string) => this.#db.prepare(sql);
    this.#statements = {
      get: prepare(`SELECT value FROM ${table} WHERE key = ? AND (expires IS NULL OR expires > ?)`),
      set: prepare(
        `INSERT INTO ${table} (key, value, expires) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value, expires = excluded.expires`,
      ),
      delete: prepare(`DELETE FROM ${table} WHERE key = ?`),
      clear: prepare(`DELETE FROM ${table} WHERE key LIKE ? ESCAPE '\\'`),
      purge: prepare(`DELETE FROM ${table} WHERE expires IS NOT NULL AND expires <= ?`),
    };
    this.#iterateSql = `SELECT key, value FROM ${table} WHERE key LIKE ? ESCAPE '\\' AND (expires IS NULL OR expires > ?) ORDER BY key`;
    this.purgeExpired();
    this.#purger = setInterval(() => this.purgeExpired(), 10 * 60_000).unref();
  }

  async get<Value>(key: string): Promise<StoredData<Value> | undefined> {
    return this.#read(key) as StoredData<Value> | undefined;
  }

  async getMany<Value>(keys: string[]): Promise<Array<StoredData<Value | undefined>>> {
    return keys.map((key) => this.#read(key) as StoredData<Value | undefined>);
  }

  async set(key: string, value: unknown, ttl?: number): Promise<boolean> {
    this.#statements.set.run(key, value as string, typeof ttl === 'number' && ttl > 0 ? Date.now() + ttl : null);
    return true;
  }

  async setMany(entries: Array<{ key: string; value: unknown; ttl?: number }>): Promise<void> {
    this.#transaction(() => {
      for (const { key, value, ttl } of entries)
        this.#statements.set.run(key, value as string, typeof ttl === 'number' && ttl > 0 ? Date.now() + ttl : null);
    });
  }

  async delete(key: string): Promise<boolean> {
    return Number(this.#statements.delete.run(key).changes) > 0;
  }

  async deleteMany(keys: string[]): Promise<boolean> {
    let deleted = 0;
    this.#transaction(() => {
      for (const key of keys) deleted += Number(this.#statements.delete.run(key).changes);
    });
    return deleted > 0;
  }

  async has(key: string): Promise<boolean> {
    return this.#read(key) !== undefined;
  }

  async clear(): Promise<void> {
    this.#statements.clear.run(this.#prefix(this.namespace));
  }

  async *iterator<Value>(namespace?: string): AsyncGenerator<Array<string | Awaited<Value> | undefined>, void> {
    // A statement of its own: iterations may overlap, and a statement iterates one at a time.
    const rows = this.#db.prepare(this.#iterateSql).iterate(this.#prefix(namespace), Date.now()) as Iterable<{
      key: string;
      value: string;
    }>;
    for (const row of rows) {
      yield [row.key, row.value as Awaited<Value>];
    }
  }

  /** Deletes the values whose time is up; returns how many. */
  purgeExpired(): number {
    return Number(this.#statements.purge.run(Date.now()).changes);
  }

  async disconnect(): Promise<void> {
    clearInterval(this.#purger);
    if (this.#db.isOpen) this.#db.close();
  }

  #read(key: string): string | undefined {
    return (this.#statements.get.get(key, Date.now()) as { value: string } | undefined)?.value;
  }

  /**
   * Adds the `expires` column to a table written by `@keyv/sqlite`, filled from the expiry Keyv keeps
   * inside each value, so that old rows expire and are purged like new ones.
   */
  #addExpires(table: string): void {
    const columns = this.#db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[];
    if (columns.some((c) => c.name === 'expires')) return;
    this.#transaction(() => {
      this.#db.exec(`ALTER TABLE ${table} ADD COLUMN expires INTEGER`);
      this.#db.exec(
        `UPDATE ${table} SET expires = json_extract(value, '$.expires') WHERE json_valid(value) AND json_type(value, '$.expires') = 'integer'`,
      );
    });
  }

  #transaction(work: () => void): void {
    // IMMEDIATE takes the write lock at once, so two writers wait for each other instead of failing midway.
    this.#db.exec('BEGIN IMMEDIATE');
    try {
      work();
      this.#db.exec('COMMIT');
    } catch (error) {
      this.#db.exec('ROLLBACK');
      throw error;
    }
  }

  /** A LIKE pattern for every key of a namespace (Keyv keys are `<namespace>:<key>`). */
  #prefix(namespace: string | undefined): string {
    return namespace ? `${namespace.replace(/[\\%_]/g, (c) => `\\${c}`)}:%` : '%';
  }
}
