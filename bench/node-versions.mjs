// Node 22 vs Node 24: throughput and tail latency of the standalone agenthost server.
//
// For each Node version this script starts the agenthost server (packages/server/dist/bin.js serve) on a free loopback
// port (offline "echo" model, in-memory store), creates one agent, and load-tests three routes
// with autocannon (10 connections, a short warm-up, then BENCH_SECONDS of measurement):
//
//   get     GET  /api/v1/agents/:id
//   create  POST /api/v1/agents
//   run     POST /api/v1/agents/:id/run   (no session_id: a new conversation each time)
//
// It then prints requests/s and p99 latency per version and the ratio node24/node22.
// Only the server changes Node version; the load generator always runs in this process.
// Results are informational: nothing is asserted, and the exit code is non-zero only if a
// server or the benchmark itself could not be started.
//
// Run after `pnpm build`, with any Node as `node` (Node 22 and 24 are fetched with `npx -y node@22`,
// `npx -y node@24`):
//
//   node bench/node-versions.mjs              # or: pnpm bench:node
//   BENCH_SECONDS=10 node bench/node-versions.mjs

import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { BenchError, nodeVersion, resolveNode, startProcess, stopProcess } from './run-route/processes.mjs';

const SERVER = fileURLToPath(new URL('../packages/server/dist/bin.js', import.meta.url));
const API_KEY = 'bench-key-0123456789abcdef';
const CONNECTIONS = 10;
const SECONDS = parseSeconds(process.env.BENCH_SECONDS, 5);
const WARMUP_SECONDS = Math.min(2, SECONDS);

const SCENARIOS = [
  { name: 'get', label: 'GET /agents/:id', request: (agentId) => ({ method: 'GET', path: `/agents/${agentId}` }) },
  {
    name: 'create',
    label: 'POST /agents',
    request: () => ({
      method: 'POST',
      path: '/agents',
      body: { name: 'bench agent', instruction: 'Answer briefly.', model: 'echo' },
    }),
  },
  {
    name: 'run',
    label: 'POST /agents/:id/run',
    request: (agentId) => ({ method: 'POST', path: `/agents/${agentId}/run`, body: { input: 'hello there' } }),
  },
];

/** A benchmark that cannot go on: reported in one line, without a stack. */
const StartError = BenchError;

function parseSeconds(value, fallback) {
  if (value === undefined || value.trim() === '') return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) {
    console.error(`BENCH_SECONDS must be a positive number of seconds, got ${JSON.stringify(value)}`);
    process.exit(2);
  }
  return n;
}

/**
 * Starts the server with `bin`, its output to files in `home` (so that reading its request logs
 * takes no CPU from the load generator); resolves with the started process and its base URL.
 */
async function startServer(bin, home) {
  const env = { ...process.env, PORT: '0', HOST: '127.0.0.1', AGENTHOST_API_KEYS: `bench:${API_KEY}` };
  for (const name of Object.keys(env))
    if (/^(OPENAI|ANTHROPIC|GOOGLE_GENERATIVE_AI|AGENTHOST)_|^NODE_OPTIONS$/.test(name)) delete env[name];
  env.AGENTHOST_API_KEYS = `bench:${API_KEY}`;
  env.AGENTHOST_STORE = 'memory';
  env.AGENTHOST_HOME = home;
  env.AGENTHOST_LOG_FORMAT = 'json';
  // The per-key limit (600 a minute) would throttle a load test of one key.
  env.AGENTHOST_RATE_LIMIT = '0';
  const started = await startProcess({
    bin,
    script: SERVER,
    args: ['serve'],
    env,
    logFile: join(home, `server-${process.pid}-${Date.now()}.log`),
    ready: /agenthost listening on (http:\/\/\S+)/,
  });
  return { ...started, url: started.match[1] };
}

async function createAgent(url) {
  let response;
  try {
    response = await fetch(`${url}/agents`, {
      method: 'POST',
      headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bench agent', instruction: 'Answer briefly.', model: 'echo' }),
    });
  } catch (error) {
    throw new StartError(`could not create the benchmark agent: ${error.message}`);
  }
  const body = await response.json().catch(() => undefined);
  const agentId = body?.data?.agent_id;
  if (!response.ok || typeof agentId !== 'string')
    throw new StartError(`could not create the benchmark agent: HTTP ${response.status} ${JSON.stringify(body)}`);
  return agentId;
}

function load(url, { method, path, body }, seconds) {
  return autocannon({
    url: `${url}${path}`,
    method,
    headers: { 'x-api-key': API_KEY, ...(body && { 'content-type': 'application/json' }) },
    ...(body && { body: JSON.stringify(body) }),
    connections: CONNECTIONS,
    duration: seconds,
  });
}

async function measure(label, bin, home) {
  const server = await startServer(bin, home);
  const results = {};
  try {
    const agentId = await createAgent(server.url);
    for (const scenario of SCENARIOS) {
      const request = scenario.request(agentId);
      await load(server.url, request, WARMUP_SECONDS);
      const r = await load(server.url, request, SECONDS);
      results[scenario.name] = {
        rps: r.requests.average,
        p99: r.latency.p99,
        ok: r['2xx'],
        non2xx: r.non2xx,
        errors: r.errors,
        timeouts: r.timeouts,
      };
      console.error(
        `  ${label} ${scenario.label}: ${fmt(r.requests.average, 0)} req/s, p99 ${fmt(r.latency.p99, 0)} ms` +
          (r.non2xx || r.errors || r.timeouts
            ? ` (non-2xx ${r.non2xx}, errors ${r.errors}, timeouts ${r.timeouts})`
            : ''),
      );
    }
  } finally {
    await stopProcess(server);
  }
  return results;
}

function fmt(n, digits) {
  return Number.isFinite(n) ? n.toFixed(digits) : 'n/a';
}

function table(rows) {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  const line = (row) =>
    `| ${row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (i === 0 ? `${'-'.repeat(w + 1)}-` : `${'-'.repeat(w + 1)}:`)).join('|')}|`;
  return [line(rows[0]), rule, ...rows.slice(1).map(line)].join('\n');
}

async function main() {
  if (!existsSync(SERVER)) throw new StartError(`${SERVER} not found; run "pnpm build" first`);
  const node22 = resolveNode(22);
  const v22 = nodeVersion(node22);
  const node24 = resolveNode(24);
  const v24 = nodeVersion(node24);

  console.error(`measuring ${CONNECTIONS} connections, ${WARMUP_SECONDS} s warm-up + ${SECONDS} s per scenario`);
  const home = mkdtempSync(join(tmpdir(), 'agenthost-node-versions-'));
  let r22;
  let r24;
  try {
    console.error(`Node 22 column: ${v22}`);
    r22 = await measure('node22', node22, home);
    console.error(`Node 24 column: ${v24}`);
    r24 = await measure('node24', node24, home);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }

  const rows = [['scenario', `node22 req/s`, `node24 req/s`, 'ratio 24/22', 'node22 p99 ms', 'node24 p99 ms']];
  const problems = [];
  for (const { name, label } of SCENARIOS) {
    const a = r22[name];
    const b = r24[name];
    rows.push([label, fmt(a.rps, 0), fmt(b.rps, 0), fmt(b.rps / a.rps, 2), fmt(a.p99, 0), fmt(b.p99, 0)]);
    for (const [v, r] of [
      [v22, a],
      [v24, b],
    ]) {
      if (r.non2xx || r.errors || r.timeouts)
        problems.push(`${label} on ${v}: ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts`);
    }
  }

  console.log(
    `\nagenthost standalone server, ${v22} vs ${v24}: ${CONNECTIONS} connections, ${SECONDS} s per scenario (after ${WARMUP_SECONDS} s warm-up), loopback\n`,
  );
  console.log(table(rows));
  console.log('');
  for (const { name } of SCENARIOS)
    console.log(`ratio node24/node22 ${name}: ${fmt(r24[name].rps / r22[name].rps, 2)}`);
  if (problems.length) {
    console.log('\nwarning: some requests did not succeed, so those numbers are not comparable:');
    for (const p of problems) console.log(`  ${p}`);
  }
}

main().catch((error) => {
  console.error(error instanceof StartError ? `bench: ${error.message}` : error);
  process.exitCode = 1;
});
