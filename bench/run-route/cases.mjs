// The cases of the run-route benchmark: starting each in processes of its own on the Node measured,
// and the in-process rounds.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { INSTRUCTION } from './conversation.mjs';
import { cpuLimit } from './cpu-limit.mjs';
import { BenchError, cpuMs, peakRssKb, startProcess, stopProcess } from './processes.mjs';

const API_KEY = 'bench-key-0123456789abcdef';
const script = (path) => fileURLToPath(new URL(path, import.meta.url));
const SERVER = script('../../packages/server/dist/bin.js');
const STANDALONE_READY = /agenthost listening on (http:\/\/\S+)/;
const APP_READY = /listening on (http:\/\/\S+) agent (\S+)/;

/**
 * The flags of every case's Node: `--node-flags`, then `--cpu-prof` arguments when profiling (one
 * `.cpuprofile` per process, named after its case).
 */
function nodeArgs(options, name) {
  if (!options.profile) return options.nodeFlags;
  return [
    ...options.nodeFlags,
    '--cpu-prof',
    '--cpu-prof-dir',
    options.profile,
    '--cpu-prof-name',
    `${name}.cpuprofile`,
  ];
}

/** The environment of a child: this one's, without provider keys, agenthost settings or NODE_OPTIONS. */
function cleanEnv() {
  const env = { ...process.env };
  for (const name of Object.keys(env))
    if (/^(OPENAI|ANTHROPIC|GOOGLE_GENERATIVE_AI|AGENTHOST|TAVILY|OTEL)_|^NODE_OPTIONS$/.test(name)) delete env[name];
  return env;
}

/** A namespace of the shared store for one case and round, remembered so it is cleared at the end. */
function namespaceFor(options, name, node, round) {
  const namespace = `bench-run-${process.pid}-${name}-${node.major}-${round}`;
  if (options.store !== 'memory') options.namespaces.add(namespace);
  return namespace;
}

/**
 * The standalone server with one of its features turned off, by the setting an operator would use:
 * what each costs is the difference to the server as shipped. (The last, its cap on V8's young
 * generation, is turned off through `NODE_OPTIONS`, which the other cases' environments never hold.)
 */
export const WITHOUT = {
  'standalone-no-logs': { AGENTHOST_LOG_LEVEL: 'silent' },
  'standalone-no-metrics': { AGENTHOST_METRICS: 'false' },
  'standalone-no-rate-limits': { AGENTHOST_RATE_LIMIT: '0', AGENTHOST_AUTH_FAILURE_LIMIT: '0' },
  'standalone-none': {
    AGENTHOST_LOG_LEVEL: 'silent',
    AGENTHOST_METRICS: 'false',
    AGENTHOST_RATE_LIMIT: '0',
    AGENTHOST_AUTH_FAILURE_LIMIT: '0',
  },
  // V8 sizes the young generation itself (0: its own default), instead of the server's cap.
  'standalone-uncapped': { NODE_OPTIONS: '--max-semi-space-size=0' },
};

/**
 * The standalone server as shipped (or without the features `without` names); only the per-key rate
 * limit is raised, so one key can be load-tested.
 */
function startStandalone(node, options, namespace, processName, without = {}) {
  const env = Object.assign(cleanEnv(), {
    PORT: '0',
    HOST: '127.0.0.1',
    AGENTHOST_HOME: options.home,
    AGENTHOST_API_KEYS: `bench:${API_KEY}`,
    AGENTHOST_STORE: options.store,
    AGENTHOST_STORE_NAMESPACE: namespace,
    AGENTHOST_RATE_LIMIT: '1000000',
    AGENTHOST_LOG_FORMAT: 'json',
    AGENTHOST_SHUTDOWN_TIMEOUT_MS: '2000',
    ...without,
  });
  return startProcess({
    bin: node.bin,
    nodeArgs: nodeArgs(options, processName),
    script: SERVER,
    args: ['serve'],
    env,
    logFile: join(options.home, `${processName}.log`),
    ready: STANDALONE_READY,
  });
}

async function createAgent(url) {
  const response = await fetch(`${url}/agents`, {
    method: 'POST',
    headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench agent', instruction: INSTRUCTION, model: 'echo' }),
  });
  const body = await response.json().catch(() => undefined);
  const agentId = body?.data?.agent_id;
  if (!response.ok || typeof agentId !== 'string')
    throw new BenchError(`could not create the benchmark agent: HTTP ${response.status} ${JSON.stringify(body)}`);
  return agentId;
}

/** One or two standalone servers on the store; the agent is made through the first. */
async function standaloneCase(name, node, options, namespace, processName) {
  const count = name === 'standalone-2' ? 2 : 1;
  const processes = [];
  for (let i = 0; i < count; i++) {
    const own = count === 1 ? processName : `${processName}-${i + 1}`;
    processes.push(await startStandalone(node, options, namespace, own, WITHOUT[name]));
  }
  const agentId = await createAgent(processes[0].match[1]);
  return { processes, targets: processes.map((p) => ({ url: p.match[1], agentId, apiKey: API_KEY })) };
}

/** The floor's settings, as floor-app.mjs takes them. */
function floorArgs(options) {
  return [...(options.floorTelemetry ? [] : ['telemetry-off']), ...(options.floorYield ? ['yield'] : [])];
}

/** The floor or the mounted router, started with its own script. */
async function appCase(name, node, options, namespace, processName) {
  const app = await startProcess({
    bin: node.bin,
    nodeArgs: nodeArgs(options, processName),
    script: script(name === 'floor' ? './floor-app.mjs' : './mounted-app.mjs'),
    args: name !== 'floor' ? [API_KEY, options.store, namespace] : floorArgs(options),
    env: cleanEnv(),
    logFile: join(options.home, `${processName}.log`),
    ready: APP_READY,
  });
  return { processes: [app], targets: [{ url: app.match[1], agentId: app.match[2], apiKey: API_KEY }] };
}

/**
 * Starts case `name` (floor, mounted, standalone, standalone-1, standalone-2, or one of
 * {@link WITHOUT}) on `node`; resolves
 * with its processes, the targets to load, and a reader of the peak RSS (the largest of its processes').
 */
export async function startCase(name, node, round, options) {
  const namespace = namespaceFor(options, name, node, round);
  const processName = `${name}-node${node.major}-round${round}`;
  const started = name.startsWith('standalone')
    ? await standaloneCase(name, node, options, namespace, processName)
    : await appCase(name, node, options, namespace, processName);
  const limits = [];
  try {
    if (options.serverCpu) limitProcesses(started.processes, options.serverCpu, limits);
  } catch (error) {
    await stopCase({ ...started, limits });
    throw error;
  }
  return {
    ...started,
    limits,
    peakRssKb: () => Math.max(...started.processes.map((p) => peakRssKb(p.child.pid))),
    cpuMs: () => started.processes.reduce((sum, p) => sum + cpuMs(p.child.pid), 0),
  };
}

/**
 * Holds each of a case's processes to `cores` cores (`--server-cpu`), each in a control group of its
 * own, added to `limits` as it is made (so that a failure part way leaves none behind); before the
 * warm-up, so that every measured run is served under the quota.
 */
function limitProcesses(processes, cores, limits) {
  for (const { child } of processes) {
    const limit = cpuLimit(`${process.pid}-${child.pid}`, cores);
    limits.push(limit);
    limit.add(child.pid);
  }
}

/** Stops every process of a started case, then removes its CPU quotas' control groups. */
export async function stopCase(started) {
  // Every process stopped (or failed to) before its group goes.
  const stopped = await Promise.allSettled(started.processes.map(stopProcess));
  for (const limit of started.limits) limit.remove();
  const failed = stopped.find((result) => result.status === 'rejected');
  if (failed) throw failed.reason;
}

/** One in-process round of `kind` in a fresh process on `node`; resolves with the JSON it prints. */
export function inProcessRound(kind, node, round, options) {
  const args = [
    '--expose-gc',
    ...nodeArgs(options, `inprocess-${kind}-node${node.major}-round${round}`),
    script('./in-process.mjs'),
    kind,
    String(options.conversations),
    String(options.turns),
    String(options.connections),
    String(Math.ceil(options.conversations / 10)),
  ];
  const child = spawn(node.bin, args, { env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => {
      const line = stdout.trim().split('\n').at(-1);
      if (code === 0 && line) return resolve(JSON.parse(line));
      reject(new BenchError(`in-process ${kind} on Node ${node.version} exited with ${code}\n${stderr.trim()}`));
    });
  });
}
