// A CPU quota for one benchmark process: a Linux control group of its own whose CFS bandwidth limit
// gives it `cores` cores' worth of CPU time (all its threads together), as a container's CPU limit
// does. With each server held to a fraction of a core, two servers and the store and the load
// generator fit on a machine of few cores, so what one server and two serve can be compared.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BenchError } from './processes.mjs';

/** The CFS period: short, so that a throttled server waits at most a few milliseconds at a time. */
const PERIOD_US = 10_000;
const V2_ROOT = '/sys/fs/cgroup';
const V1_CPU = '/sys/fs/cgroup/cpu';

const readable = (file) => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
};

/** Deletes a control group; one that still holds a process is left, with a warning. */
function removeGroup(dir) {
  try {
    rmdirSync(dir);
  } catch (error) {
    if (error.code !== 'ENOENT') console.error(`warning: could not remove the control group ${dir}: ${error.message}`);
  }
}

/** Which cgroup interface holds the CPU controller here: 'v2', 'v1', or undefined. */
function hierarchy() {
  if (/\bcpu\b/.test(readable(join(V2_ROOT, 'cgroup.controllers')))) return 'v2';
  if (existsSync(join(V1_CPU, 'cpu.cfs_quota_us'))) return 'v1';
  return undefined;
}

const PREFIX = 'agenthost-bench-';

/** Whether process `pid` is gone. */
function gone(pid) {
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return error.code === 'ESRCH';
  }
}

/**
 * Fails at once, before any case runs, when quotas cannot be set on this machine: makes a group and
 * moves a short-lived process into it. Removes first the groups left by benchmarks that are gone.
 */
export async function checkCpuLimits() {
  const kind = hierarchy();
  if (!kind) throw new BenchError('--server-cpu needs Linux control groups with the cpu controller (cgroup v1 or v2)');
  const root = kind === 'v2' ? V2_ROOT : V1_CPU;
  for (const name of readdirSync(root)) {
    // `<prefix><benchmark's pid>-<server's pid>` or `<prefix>probe-<benchmark's pid>`.
    const owner = /^(?:probe-)?(\d+)/.exec(name.slice(PREFIX.length))?.[1];
    if (name.startsWith(PREFIX) && owner && gone(Number(owner))) removeGroup(join(root, name));
  }
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 10000)'], { stdio: 'ignore' });
  const exited = new Promise((resolve) => child.once('exit', resolve).once('error', resolve));
  let probe;
  try {
    probe = cpuLimit(`probe-${process.pid}`, 1);
    if (!child.pid) throw new BenchError('could not start a process to probe the control groups with');
    probe.add(child.pid);
  } finally {
    child.kill('SIGKILL');
    await exited;
    probe?.remove();
  }
}

/**
 * A control group named `name` limited to `cores` cores; `add(pid)` moves a process (every thread)
 * into it, `remove()` deletes it once its processes have exited.
 */
export function cpuLimit(name, cores) {
  const kind = hierarchy();
  const quota = Math.max(1000, Math.round(cores * PERIOD_US));
  const dir = join(kind === 'v2' ? V2_ROOT : V1_CPU, PREFIX + name);
  try {
    mkdirSync(dir);
    if (kind === 'v2') {
      writeFileSync(join(V2_ROOT, 'cgroup.subtree_control'), '+cpu');
      writeFileSync(join(dir, 'cpu.max'), `${quota} ${PERIOD_US}`);
    } else {
      writeFileSync(join(dir, 'cpu.cfs_period_us'), String(PERIOD_US));
      writeFileSync(join(dir, 'cpu.cfs_quota_us'), String(quota));
    }
  } catch (error) {
    removeGroup(dir);
    throw new BenchError(
      `could not make the control group ${dir}: ${error.message} (it takes root, and a cgroup hierarchy this process may change)`,
    );
  }
  return {
    add: (pid) => {
      try {
        writeFileSync(join(dir, 'cgroup.procs'), String(pid));
      } catch (error) {
        throw new BenchError(`could not move process ${pid} into the control group ${dir}: ${error.message}`);
      }
    },
    remove: () => removeGroup(dir),
  };
}
