// The processes of the run-route benchmark: which Node runs them, starting one and waiting for the
// address it prints, its peak resident memory, stopping it, and clearing what a shared store kept.
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus as osCpus, totalmem } from 'node:os';
import { pathToFileURL } from 'node:url';

const START_TIMEOUT_MS = 20_000;
const STOP_TIMEOUT_MS = 15_000;

/** A benchmark that cannot go on: reported in one line, without a stack. */
export class BenchError extends Error {}

/** The path of Node `major` as `npx -y node@<major>` installs it, or this process's for `current`. */
export function resolveNode(major) {
  if (major === 'current') return process.execPath;
  const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';
  let out;
  try {
    out = execFileSync(npx, ['-y', `node@${major}`, '-p', 'process.execPath'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      shell: process.platform === 'win32',
      timeout: 300_000,
    });
  } catch (error) {
    throw new BenchError(`could not get Node ${major} with "npx -y node@${major}": ${error.message}`);
  }
  const bin = out.trim().split(/\r?\n/).at(-1)?.trim();
  if (!bin || !existsSync(bin)) throw new BenchError(`"npx -y node@${major}" printed no usable path`);
  return bin;
}

/** `process.version` of the Node at `bin`. */
export function nodeVersion(bin) {
  try {
    return execFileSync(bin, ['-p', 'process.version'], { encoding: 'utf8' }).trim();
  } catch (error) {
    throw new BenchError(`could not run ${bin}: ${error.message}`);
  }
}

/** The last `bytes` of a file, or '' when it cannot be read. */
function tail(file, bytes = 20_000) {
  try {
    return readFileSync(file, 'utf8').slice(-bytes);
  } catch {
    return '';
  }
}

/**
 * Starts `node [nodeArgs] script [args]` with `bin`. Its standard output goes to `logFile` and its
 * standard error to `logFile.err` (the standalone server writes its request logs to standard error:
 * they are written as they would be in production, without a reader in this process competing with
 * the load generator for the CPU); resolves once the output matches `ready`, with the child and the
 * match.
 */
export function startProcess({ bin, nodeArgs = [], script, args = [], env = process.env, logFile, ready }) {
  const out = openSync(logFile, 'w');
  const err = openSync(`${logFile}.err`, 'w');
  const child = spawn(bin, [...nodeArgs, script, ...args], { env, stdio: ['ignore', out, err] });
  closeSync(out);
  closeSync(err);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return new Promise((resolve, reject) => {
    const started = Date.now();
    // A binary that cannot be run (spawn's `error`) ends the wait at once; later errors are kept, not thrown.
    let spawnError;
    child.on('error', (error) => {
      spawnError = error;
    });
    const poll = setInterval(() => {
      if (spawnError) {
        clearInterval(poll);
        return reject(new BenchError(`could not run ${bin}: ${spawnError.message}`));
      }
      const match = ready.exec(readFileSync(logFile, 'utf8').slice(0, 10_000));
      const gone = child.exitCode !== null || child.signalCode !== null;
      if (!match && !gone && Date.now() - started < START_TIMEOUT_MS) return;
      clearInterval(poll);
      if (match) return resolve({ child, match, exited, logFile });
      child.kill('SIGKILL');
      const why = gone ? `exited (code ${child.exitCode}, signal ${child.signalCode})` : 'did not start in time';
      const stderr = tail(`${logFile}.err`).trim();
      reject(new BenchError(`${script} ${why}${stderr ? `\n${stderr}` : ''}`));
    }, 25);
  });
}

/** The peak resident set size of a running process, in kB (Linux: `VmHWM`), or `NaN` where unknown. */
export function peakRssKb(pid) {
  try {
    const match = /^VmHWM:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** Clock ticks per second of `/proc/<pid>/stat`'s CPU times (`USER_HZ`: 100 on Linux's usual builds). */
const USER_HZ = 100;

/**
 * The CPU time a running process has used so far, user and system, all its threads (its GC and
 * worker threads too), in ms (Linux: `/proc/<pid>/stat`, 10 ms ticks), or `NaN` where unknown.
 */
export function cpuMs(pid) {
  try {
    // Fields after the command name, which is in parentheses and may hold spaces and parentheses itself.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / USER_HZ;
  } catch {
    return Number.NaN;
  }
}

/** Stops a started process with SIGTERM (SIGKILL after a while) and removes its log files. */
export async function stopProcess({ child, exited, logFile }) {
  if (child.exitCode === null && child.signalCode === null) {
    child.kill('SIGTERM');
    const timeout = new Promise((resolve) => setTimeout(resolve, STOP_TIMEOUT_MS, 'timeout').unref());
    if ((await Promise.race([exited, timeout])) === 'timeout') {
      console.error(`pid ${child.pid} still running ${STOP_TIMEOUT_MS / 1000} s after SIGTERM; sending SIGKILL`);
      child.kill('SIGKILL');
      await exited;
    }
  }
  rmSync(logFile, { force: true });
  rmSync(`${logFile}.err`, { force: true });
}

const fromStorage = createRequire(new URL('../../packages/storage/package.json', import.meta.url));
const loadFromStorage = (name) => import(pathToFileURL(fromStorage.resolve(name)).href);

/** Deletes what the benchmark wrote under `namespace` in a Redis or PostgreSQL store. */
export async function clearStore(location, namespace) {
  if (/^rediss?:/.test(location)) {
    const { createClient } = await loadFromStorage('@keyv/redis');
    const client = createClient({ url: location });
    await client.connect();
    for await (const keys of client.scanIterator({ MATCH: `${namespace}*`, COUNT: 1000 }))
      if (keys.length) await client.del(keys);
    client.destroy();
  } else if (/^postgres(ql)?:/.test(location)) {
    const { default: pg } = await loadFromStorage('pg');
    const client = new pg.Client({ connectionString: location });
    await client.connect();
    await client.query('DELETE FROM agenthost_kv WHERE key LIKE $1', [`${namespace}:%`]);
    for (const table of ['agenthost_run_events', 'agenthost_runs'])
      await client.query(`DELETE FROM ${table} WHERE namespace = $1`, [namespace]).catch(() => {});
    await client.end();
  }
}

/** This machine's CPU model, CPU count and memory, for the report. */
export function machine() {
  const cpus = osCpus();
  return `${cpus.length} x ${cpus[0]?.model?.trim() ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB`;
}
