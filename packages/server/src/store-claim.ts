import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { loadNodeSqlite } from '@agenthost/storage';

/** SQLite's answer when another connection holds the lock. */
const SQLITE_BUSY = 5;

/**
 * Makes the folder and the database file of a SQLite store private to the user running agenthost
 * when they do not exist yet: the file holds the deployment secret, key records and every
 * conversation. SQLite gives its `-wal` and `-shm` files the database file's permissions. Existing
 * folders and files keep theirs.
 */
export function preparePrivateSqliteFile(location: string): void {
  if (!location.startsWith('sqlite://')) return;
  const file = resolve(location.slice('sqlite://'.length));
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  closeSync(openSync(file, 'a', 0o600));
}

/** Opens `<file>.lock` and takes SQLite's exclusive lock on it; `undefined` when another connection holds it. */
function takeLock(lockFile: string): DatabaseSync | undefined {
  const db = new (loadNodeSqlite().DatabaseSync)(lockFile, { timeout: 0 });
  try {
    // An exclusive transaction that is never committed: the lock lasts as long as the connection, and
    // the operating system drops it when the process ends, however it ends.
    db.exec('PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE;');
    return db;
  } catch (error) {
    db.close();
    if ((error as { errcode?: number }).errcode === SQLITE_BUSY) return undefined;
    throw error;
  }
}

/** The process id written beside a claim, for the message a second server gets. */
function holderPid(pidFile: string): string {
  try {
    return readFileSync(pidFile, 'utf8').trim() || 'unknown';
  } catch {
    return 'unknown';
  }
}

/**
 * Claims a SQLite store for this server: one server per SQLite file, by design (its locks are
 * in-process). The claim is an exclusive lock on `<file>.lock`, held by the operating system for as
 * long as the server runs, in this process or another, and dropped when it ends (stopped, killed,
 * crashed), so a claim is never stale. `<file>.pid` beside it names the holder for the refusal
 * message. Other stores need no claim.
 * @returns the release, which drops the lock.
 * @throws Error naming the file and the process that holds it.
 */
export async function claimStore(location: string): Promise<() => Promise<void>> {
  if (!location.startsWith('sqlite://')) return async () => {};
  preparePrivateSqliteFile(location);
  const file = resolve(location.slice('sqlite://'.length));
  const pidFile = `${file}.pid`;
  const lock = takeLock(`${file}.lock`);
  if (!lock)
    throw new Error(
      `another agenthost server (process ${holderPid(pidFile)}) is serving ${file}: one server per SQLite file. Stop it, or give this server another AGENTHOST_HOME or AGENTHOST_STORE (servers can share a Redis or PostgreSQL store)`,
    );
  writeFileSync(pidFile, `${process.pid}\n`, { mode: 0o600 });
  let held = true;
  return async function releaseStore() {
    if (!held) return;
    held = false;
    try {
      unlinkSync(pidFile);
    } catch {
      // Gone already: nothing to tidy.
    }
    lock.close();
  };
}
