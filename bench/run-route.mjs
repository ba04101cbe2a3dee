// The run route against a bare AI-SDK route: how much agenthost costs on top of the AI SDK itself.
//
// For each Node version, in rounds (default 3) that interleave the cases, each case in a fresh
// process of that Node, one at a time:
//
//   floor       a bare Express 5 app whose POST route calls `generateText` on a zero-latency
//               `MockLanguageModelV4` (from `ai/test`) and keeps each conversation's history in a Map,
//               and whose GET route answers a stored agent record from a Map (bench/run-route/floor-app.mjs)
//   mounted     agenthost's router (`createAgentRouter`) mounted in an Express app, over a MemoryStore
//               (or --store), with the same mock model as its model provider (bench/run-route/mounted-app.mjs)
//   standalone  the standalone server as shipped (`packages/server/dist/bin.js serve`): request logs,
//               metrics, idempotency, rate limits on, on its built-in zero-latency `echo` model, which
//               answers `Echo: <input>` as the mock does. Only the per-key rate limit is raised (from
//               600 to 1,000,000 a minute), so one key can be load-tested; it is still counted.
//
// Each is loaded with autocannon from this process: 50 connections, each holding 10-turn
// conversations (the first run starts a session, the next nine continue it with its `session_id`,
// then a new conversation starts), a warm-up, then a fixed number of runs, so every case serves the
// same conversations; then `GET /agents/:id` the same way. The case's peak RSS is read after the runs.
// With --servers 2, each of the two servers gets --connections of its own, as one server does alone.
// In-process, each in a fresh process too: `runAgent` on a MemoryStore against `generateText` with the
// history in a Map, over the same conversations; and `generateText` with the SDK's telemetry off (as
// agenthost calls it when its own is off), and on the `echo` model (what the standalone server runs).
//
// It prints, per Node version, medians over the rounds: runs/s, p99, GET/s, peak RSS, and ratios to
// the floor (each round's ratio between measurements made one after the other, then the median), and
// the server's CPU time per run (all its threads, from /proc; Linux only; not an external store's),
// which the load generator's share of the machine skews less.
// Nothing is asserted; the exit code is non-zero only when a case could not be started or checked.
//
//   pnpm build && node bench/run-route.mjs            # or: pnpm bench:run
//   node bench/run-route.mjs --node 24 --rounds 1 --only mounted,standalone
//   node bench/run-route.mjs --store redis://127.0.0.1:6379          # mounted and standalone on Redis
//   node bench/run-route.mjs --store postgres://postgres@127.0.0.1:5432/test
//   node bench/run-route.mjs --store redis://127.0.0.1:6379 --servers 2   # one server vs two on one Redis
//   node bench/run-route.mjs --store redis://127.0.0.1:6379 --servers 2 --server-cpu 0.4   # each held to 0.4 of a core
//   node bench/run-route.mjs --profile "$(mktemp -d)" --rounds 1   # each process writes a .cpuprofile there
//   node bench/run-route.mjs --node 24 --features    # the standalone server with each feature turned off
//
// Options: --node 22,24 (majors, or `current`), --rounds 3, --connections 50, --turns 10,
// --requests 10000 (runs measured per case and round), --warmup 3000, --get-requests 20000,
// --conversations 5000 (in-process, per round), --only floor,mounted,standalone,inprocess,
// --store memory, --servers 1, --idempotency-keys (send a fresh Idempotency-Key with every run),
// --floor-telemetry on|off (the floor's `generateText` with the SDK's defaults, or its telemetry off,
// as agenthost's), --floor-yield (the floor goes on with each request on the event loop's next turn, as
// agenthost's router does), --features (the standalone server as shipped against itself with its
// request logs, its metrics, its rate limits, and all three turned off, with V8 sizing its young
// generation itself instead of the server's cap, and the mounted router),
// --node-flags=<flags> (flags for the Node of every case, separated by spaces, e.g.
// --node-flags=--max-semi-space-size=16), --server-cpu <cores> (each server process of the HTTP cases
// held to that many cores' CPU time by a control group of its own, as a container's CPU limit does;
// Linux, as root), --profile <dir>.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { inProcessRound, startCase, stopCase, WITHOUT } from './run-route/cases.mjs';
import { checkCpuLimits } from './run-route/cpu-limit.mjs';
import { checkConversation, getLoad, runLoad } from './run-route/load.mjs';
import { BenchError, clearStore, machine, nodeVersion, resolveNode } from './run-route/processes.mjs';
import {
  fmt,
  httpTable,
  inProcessTable,
  medianRatio,
  problems,
  roundRatios,
  targetLines,
} from './run-route/report.mjs';

const LABELS = {
  floor: 'floor: Express + generateText',
  mounted: 'agenthost router, mounted',
  standalone: 'standalone server',
  'standalone-1': 'standalone server x1',
  'standalone-2': 'standalone servers x2',
  'standalone-no-logs': 'standalone, request logs off',
  'standalone-no-metrics': 'standalone, metrics off',
  'standalone-no-rate-limits': 'standalone, rate limits off',
  'standalone-none': 'standalone, all three off',
  'standalone-uncapped': 'standalone, young generation uncapped',
  generateText: 'generateText + Map (mock)',
  'generateText-quiet': 'generateText + Map (mock, SDK telemetry off)',
  runAgent: 'runAgent, MemoryStore (mock)',
  'generateText-echo': 'generateText + Map (echo)',
};

function parseOptions() {
  const { values } = parseArgs({
    options: {
      node: { type: 'string', default: '22,24' },
      rounds: { type: 'string', default: '3' },
      connections: { type: 'string', default: '50' },
      turns: { type: 'string', default: '10' },
      requests: { type: 'string', default: '10000' },
      warmup: { type: 'string', default: '3000' },
      'get-requests': { type: 'string', default: '20000' },
      conversations: { type: 'string', default: '5000' },
      only: { type: 'string', default: 'floor,mounted,standalone,inprocess' },
      store: { type: 'string', default: 'memory' },
      servers: { type: 'string', default: '1' },
      'idempotency-keys': { type: 'boolean', default: false },
      'floor-telemetry': { type: 'string', default: 'on' },
      'floor-yield': { type: 'boolean', default: false },
      features: { type: 'boolean', default: false },
      'node-flags': { type: 'string', default: '' },
      'server-cpu': { type: 'string' },
      profile: { type: 'string' },
    },
  });
  const whole = (name) => {
    const n = Number(values[name]);
    if (!Number.isInteger(n) || n <= 0) throw new BenchError(`--${name} must be a positive whole number`);
    return n;
  };
  const options = {
    nodes: values.node.split(',').map((v) => v.trim()),
    rounds: whole('rounds'),
    connections: whole('connections'),
    turns: whole('turns'),
    requests: whole('requests'),
    warmup: whole('warmup'),
    getRequests: whole('get-requests'),
    conversations: whole('conversations'),
    only: new Set(values.only.split(',').map((v) => v.trim())),
    store: values.store,
    servers: whole('servers'),
    idempotencyKeys: values['idempotency-keys'],
    floorTelemetry: values['floor-telemetry'] !== 'off',
    floorYield: values['floor-yield'],
    features: values.features,
    nodeFlags: values['node-flags'].split(/\s+/).filter(Boolean),
    serverCpu: values['server-cpu'] === undefined ? undefined : Number(values['server-cpu']),
    profile: values.profile,
  };
  if (options.serverCpu !== undefined && !(options.serverCpu >= 0.1 && options.serverCpu <= cpus().length))
    throw new BenchError(`--server-cpu is a number of cores from 0.1 to ${cpus().length}`);
  if (options.servers > 2) throw new BenchError('--servers is 1 or 2');
  if (!['on', 'off'].includes(values['floor-telemetry'])) throw new BenchError('--floor-telemetry is on or off');
  if (options.features && options.servers === 2) throw new BenchError('--features measures one server');
  if (options.servers === 2 && options.store === 'memory')
    throw new BenchError('--servers 2 needs a shared store: --store redis://... or postgres://...');
  // Every connection holds whole conversations, on every server.
  const conversations = options.connections * options.turns * options.servers;
  if (
    options.requests % conversations ||
    options.warmup % conversations ||
    options.getRequests % options.servers ||
    options.getRequests < options.connections * options.servers
  )
    throw new BenchError(
      '--requests and --warmup must be multiples of connections x turns x servers, --get-requests a multiple of --servers and at least connections x servers',
    );
  return options;
}

/** Measures one case in a fresh process (or two): runs after a warm-up, its peak RSS, then GET agent. */
async function measureCase(name, node, round, options) {
  const started = await startCase(name, node, round, options);
  try {
    const { targets } = started;
    await checkConversation(targets[0]).catch((error) => {
      throw new BenchError(`${LABELS[name]} on Node ${node.version} failed its check: ${error.message}`);
    });
    // Each server of the case gets `--connections` of its own: two servers take twice the clients.
    const connections = options.connections * targets.length;
    const load = { connections, turns: options.turns, idempotencyKeys: options.idempotencyKeys };
    await runLoad(targets, { ...load, amount: options.warmup });
    const cpuBefore = started.cpuMs();
    const run = await runLoad(targets, { ...load, amount: options.requests });
    // The server's own CPU per run: what the ratios of runs/s measure too, without the share of
    // the two cores the load generator happened to take.
    run.cpuUs = ((started.cpuMs() - cpuBefore) * 1000) / options.requests;
    const rssKb = started.peakRssKb();
    const reads = { connections };
    const readsWarmup = Math.max(connections, Math.ceil(options.getRequests / 4 / targets.length) * targets.length);
    await getLoad(targets, { ...reads, amount: readsWarmup });
    const get = await getLoad(targets, { ...reads, amount: options.getRequests });
    console.error(
      `  ${node.label} round ${round} ${LABELS[name]}: ${fmt(run.rps)} runs/s, p99 ${fmt(run.p99)} ms, ${fmt(run.cpuUs)} µs CPU/run, ` +
        `GET ${fmt(get.rps)}/s, peak RSS ${fmt(rssKb / 1024)} MB`,
    );
    return { run, get, rssKb };
  } finally {
    await stopCase(started);
  }
}

/** `list` turned left by `by` places. */
const rotated = (list, by) => list.map((_, i) => list[(i + by) % list.length]);

/** Every round of one Node version: the HTTP cases, then the in-process ones, interleaved. */
async function measureNode(node, options) {
  const httpNames =
    options.servers === 2
      ? ['standalone-1', 'standalone-2']
      : options.features
        ? ['standalone', ...Object.keys(WITHOUT), 'mounted']
        : ['floor', 'mounted', 'standalone'].filter((n) => options.only.has(n));
  const inProcessKinds =
    options.only.has('inprocess') && options.servers === 1 && !options.features
      ? ['generateText', 'runAgent', 'generateText-quiet', 'generateText-echo']
      : [];
  const http = Object.fromEntries(httpNames.map((n) => [n, []]));
  const inProcess = Object.fromEntries(inProcessKinds.map((k) => [k, []]));
  for (let round = 1; round <= options.rounds; round++) {
    // Each round starts with another case, so that none is always the first measured.
    for (const name of rotated(httpNames, round - 1)) http[name].push(await measureCase(name, node, round, options));
    for (const kind of rotated(inProcessKinds, round - 1)) {
      const result = await inProcessRound(kind, node, round, options);
      console.error(
        `  ${node.label} round ${round} ${LABELS[kind]}: ${fmt(result.per_second)} calls/s, peak RSS ${fmt(result.max_rss_kb / 1024)} MB`,
      );
      inProcess[kind].push(result);
    }
  }
  return { http, inProcess };
}

/** The case the HTTP table's ratios are to, and its name in the header. */
function baseCase(options) {
  if (options.servers === 2) return ['standalone-1', 'one server'];
  return options.features ? ['standalone', 'as shipped'] : ['floor', 'floor'];
}

function httpReport(node, http, options) {
  const [base, baseLabel] = baseCase(options);
  const store = options.store === 'memory' ? 'memory' : options.store.split(':')[0];
  const lines = [
    `HTTP: ${options.connections} connections${options.servers === 2 ? ' a server' : ''}, ${options.turns}-turn conversations, ${options.requests} runs and ` +
      `${options.getRequests} GETs measured per case after a warm-up, store ${store}; medians of ${options.rounds}` +
      `${options.servers === 2 ? "; two servers' p99 is the worse of theirs" : ''}\n`,
    httpTable(http, LABELS, base, baseLabel),
    '',
    ...roundRatios(http, LABELS, base, baseLabel),
  ];
  if (http['standalone-2']) {
    const ratio = medianRatio(http['standalone-2'], http['standalone-1'], (r) => r.run.rps);
    const met = ratio >= 1.6 ? 'met' : 'not met';
    const held = options.serverCpu ? `, each held to ${options.serverCpu} of a core` : '';
    lines.push('', `target node${node.major} two servers x one server run >= 1.6${held}: ${fmt(ratio, 2)} (${met})`);
  }
  return lines;
}

function report(node, { http, inProcess }, options) {
  const lines = [`\n## Node ${node.version}\n`];
  if (Object.keys(http).length) lines.push(...httpReport(node, http, options));
  if (Object.keys(inProcess).length) {
    lines.push(
      `\nIn-process: ${options.conversations} conversations of ${options.turns} turns, ${options.connections} at a time; medians of ${options.rounds}\n`,
      inProcessTable(inProcess, LABELS),
    );
  }
  const targets = targetLines(http, inProcess);
  const flags = options.nodeFlags.length ? ` with ${options.nodeFlags.join(' ')}` : '';
  if (targets.length) lines.push('', ...targets.map((t) => `target node${node.major}${flags} ${t}`));
  const failed = problems(node.label, http, LABELS);
  if (failed.length)
    lines.push('\nwarning: some requests did not succeed, so those numbers are not comparable:', ...failed);
  return lines.join('\n');
}

async function main() {
  const options = parseOptions();
  if (options.serverCpu) await checkCpuLimits();
  const floorSettings = [
    !options.floorTelemetry && 'SDK telemetry off',
    options.floorYield && 'a turn of the loop first',
  ];
  if (floorSettings.some(Boolean))
    LABELS.floor = `floor: Express + generateText (${floorSettings.filter(Boolean).join(', ')})`;
  const server = fileURLToPath(new URL('../packages/server/dist/bin.js', import.meta.url));
  if (!existsSync(server)) throw new BenchError(`${server} not found; run "pnpm build" first`);
  const nodes = options.nodes.map((major) => {
    const bin = resolveNode(major);
    const version = nodeVersion(bin);
    return { major: version.slice(1).split('.')[0], bin, version, label: `node${version.slice(1).split('.')[0]}` };
  });
  options.home = mkdtempSync(join(tmpdir(), 'agenthost-run-route-'));
  options.namespaces = new Set();
  const flags = [
    options.nodeFlags.length ? `; every case's Node with ${options.nodeFlags.join(' ')}` : '',
    options.serverCpu ? `; each server process held to ${options.serverCpu} of a core` : '',
  ].join('');
  const output = [`# run route vs a bare AI-SDK route (${machine()}${flags})`];
  // Other work on the machine skews the numbers; a load well above 0 before the start says so.
  const [loadBefore] = loadavg();
  try {
    for (const node of nodes) {
      console.error(`Node ${node.version}:`);
      output.push(report(node, await measureNode(node, options), options));
    }
  } finally {
    for (const namespace of options.namespaces) await clearStore(options.store, namespace).catch(() => {});
    rmSync(options.home, { recursive: true, force: true });
  }
  output.push(`\nload average (1 min) before: ${loadBefore.toFixed(2)}, after: ${loadavg()[0].toFixed(2)}`);
  console.log(output.join('\n'));
}

main().catch((error) => {
  console.error(error instanceof BenchError ? `bench: ${error.message}` : error);
  process.exitCode = 1;
});
