import { mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

/** Claims this process holds, so a second host in the same process is refused too. */
const held = new Set<string>();

/** Whether a process runs under `pid` (one we may not signal runs too). */
function alive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The process holding `claim`, or `undefined` when nobody does (no claim, or a stale one). */
async function holder(claim: string): Promise<number | undefined> {
  const pid = Number((await readFile(claim, 'utf8').catch(() => '')).trim());
  // Our own pid in a claim we do not hold is a previous life of this pid (a restarted container).
  if (pid === process.pid && !held.has(claim)) return undefined;
  return alive(pid) ? pid : undefined;
}

/** Writes the claim if nobody holds it; `false` when it exists already. */
async function tryWrite(claim: string): Promise<boolean> {
  try {
    await writeFile(claim, `${process.pid}\n`, { flag: 'wx' });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/**
 * Claims a SQLite store for this server: one server per SQLite file, by design (its locks are in-process).
 * The claim is a file beside the database (`<file>.pid`) holding the server's process id; a claim
 * left by a process that no longer runs (killed, crashed) is taken over. Other stores need no claim.
 * @returns the release, which removes the claim.
 * @throws Error naming the file and the process that holds it.
 */
export async function claimStore(location: string): Promise<() => Promise<void>> {
  if (!location.startsWith('sqlite://')) return async () => {};
  const file = resolve(location.slice('sqlite://'.length));
  const claim = `${file}.pid`;
  await mkdir(dirname(claim), { recursive: true });
  let written = await tryWrite(claim);
  if (!written) {
    const pid = await holder(claim);
    if (pid !== undefined)
      throw new Error(
        `another agenthost server (process ${pid}) is serving ${file}: one server per SQLite file. Stop it, or give this server another AGENTHOST_HOME or AGENTHOST_STORE (servers can share a Redis or PostgreSQL store)`,
      );
    await unlink(claim).catch(() => {});
    written = await tryWrite(claim);
    if (!written)
      throw new Error(`another agenthost server took ${file} at the same moment: one server per SQLite file`);
  }
  held.add(claim);
  return async function releaseStore() {
    if (!held.delete(claim)) return;
    const pid = Number((await readFile(claim, 'utf8').catch(() => '')).trim());
    if (pid === process.pid) await unlink(claim).catch(() => {});
  };
}
