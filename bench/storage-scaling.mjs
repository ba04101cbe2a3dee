// Does the cost of a run or a list grow with data that it does not need?
//
// For each store (memory, SQLite, Redis, PostgreSQL) this script measures, in one run:
//   run   the latency of AgentService.runAgent (echo model) in a session with 10 earlier turns,
//         and in one with 10,000 earlier turns;
//   list  the latency of listAgents for an account with 10 agents, when the store holds no other
//         agents, and again after 100,000 agents of other accounts were added.
// It prints the medians and the ratios (10,000 turns / 10 turns; 100,000 others / none). A run reads
// only the window of history it sends (100 messages), and a list reads only its account's agents,
// so both ratios should stay near 1. Nothing is asserted; numbers depend on the machine.
//
//   pnpm build && node bench/storage-scaling.mjs          # or: pnpm bench:storage
//   BENCH_STORES=memory,redis BENCH_TURNS=10000 BENCH_OTHER_AGENTS=100000 BENCH_SAMPLES=300 node bench/storage-scaling.mjs
//
// Redis is REDIS_URL (default redis://127.0.0.1:6379), PostgreSQL is POSTGRES_URL or DATABASE_URL
// (default postgres://postgres@127.0.0.1:5432/test); the script writes under a fresh namespace in each
// and deletes it afterwards. SQLite uses a temporary file. A store it cannot reach is reported under
// the table, the others measured all the same, and the exit code is then 1.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { AgentService, echoModels } from '../packages/core/dist/index.js';
import { openStore } from '../packages/storage/dist/index.js';
import { clearStore } from './run-route/processes.mjs';

const STORES = (process.env.BENCH_STORES ?? 'memory,sqlite,redis,postgres').split(',').map((s) => s.trim());
const TURNS = Number(process.env.BENCH_TURNS ?? 10_000);
const OTHERS = Number(process.env.BENCH_OTHER_AGENTS ?? 100_000);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 300);
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const POSTGRES_URL = process.env.POSTGRES_URL || process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const namespace = `bench-${process.pid}-${Date.now().toString(36)}`;

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

/** Times `fn` SAMPLES times after a warm-up; returns the median in ms. */
async function time(fn) {
  for (let i = 0; i < Math.min(30, SAMPLES); i++) await fn(i);
  const samples = [];
  for (let i = 0; i < SAMPLES; i++) {
    const t = performance.now();
    await fn(i);
    samples.push(performance.now() - t);
  }
  return median(samples);
}

/** Times two operations with their samples interleaved, so drift and warm-up affect both alike. */
async function timePair(a, b) {
  for (let i = 0; i < Math.min(30, SAMPLES); i++) {
    await a();
    await b();
  }
  const [as, bs] = [[], []];
  for (let i = 0; i < SAMPLES; i++) {
    for (const [fn, out] of [
      [a, as],
      [b, bs],
    ]) {
      const t = performance.now();
      await fn();
      out.push(performance.now() - t);
    }
  }
  return [median(as), median(bs)];
}

/** Runs `count` calls of `fn(i)`, `concurrency` at a time. */
async function pool(count, concurrency, fn) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < count; i = next++) await fn(i);
    }),
  );
}

function turns(n, offset = 0) {
  const at = new Date(0).toISOString();
  return Array.from({ length: n }, (_, i) => [
    { role: 'user', content: `question ${offset + i}: how do I reset my password?`, created_at: at },
    { role: 'assistant', content: `Echo: question ${offset + i}: how do I reset my password?`, created_at: at },
  ]).flat();
}

async function measure(kind, location) {
  const opened = await openStore(location, { namespace });
  written.add(location);
  try {
    return { ...(await measureOpened(kind, opened)), close: () => opened.close() };
  } catch (error) {
    // A store left open would keep the process alive after the table.
    await opened.close().catch(() => {});
    throw error;
  }
}

/** Measures an opened store: runs with a short and a long history, lists alone and among others. */
async function measureOpened(kind, opened) {
  const service = new AgentService({ store: opened.store, models: echoModels(), locks: opened.locks });
  const seedStarted = performance.now();
  const agent = await service.createAgent('bench', { name: 'Bench', instruction: 'Answer briefly.', model: 'echo' });
  const ref = (sessionId) => ({ accountId: 'bench', agentId: agent.agent_id, sessionId });
  await opened.store.appendMessages(ref('short'), turns(10));
  for (let done = 0; done < TURNS; done += 1000)
    await opened.store.appendMessages(ref('long'), turns(Math.min(1000, TURNS - done), done));

  const [runShort, runLong] = await timePair(
    () => service.runAgent('bench', agent.agent_id, { input: 'one more question', session_id: 'short' }),
    () => service.runAgent('bench', agent.agent_id, { input: 'one more question', session_id: 'long' }),
  );

  for (let i = 0; i < 10; i++)
    await service.createAgent('lister', { name: `mine ${i}`, instruction: 'x', model: 'echo' });
  const listAlone = await time(() => service.listAgents('lister'));
  const accounts = Math.max(1, Math.ceil(OTHERS / 100));
  await pool(OTHERS, 32, (i) =>
    service.createAgent(`other-${i % accounts}`, { name: `other ${i}`, instruction: 'x', model: 'echo' }),
  );
  const listCrowded = await time(() => service.listAgents('lister'));
  const seedSeconds = (performance.now() - seedStarted) / 1000;

  const listed = (await service.listAgents('lister')).length;
  if (listed !== 10) throw new Error(`${kind}: listed ${listed} agents, expected 10`);
  return { kind, runShort, runLong, listAlone, listCrowded, seedSeconds };
}

const dir = await mkdtemp(join(tmpdir(), 'agenthost-bench-'));
/** The stores this run opened, to clear at the end (clearing memory and SQLite does nothing). */
const written = new Set();
const rows = [];
const skipped = [];
const uncleared = [];
try {
  for (const kind of STORES) {
    const location = {
      memory: 'memory',
      sqlite: `sqlite://${join(dir, 'bench.sqlite')}`,
      redis: REDIS_URL,
      postgres: POSTGRES_URL,
    }[kind];
    if (!location) throw new Error(`unknown store ${kind}`);
    process.stderr.write(`${kind}: seeding ${TURNS} turns and ${OTHERS} other agents, ${SAMPLES} samples each...\n`);
    try {
      const r = await measure(kind, location);
      rows.push(r);
      await r.close();
    } catch (error) {
      // A store this machine does not run (no Redis, no PostgreSQL) leaves the others' figures standing.
      skipped.push(`${kind}: ${error.message}`);
    }
  }
} finally {
  await rm(dir, { recursive: true, force: true });
  for (const location of written)
    await clearStore(location, namespace).catch((error) => uncleared.push(`${location}: ${error.message}`));
}

const f = (ms) => ms.toFixed(3).padStart(8);
console.log(`\nmedian latency in ms (${SAMPLES} samples each; node ${process.version})\n`);
console.log(
  `store    | run, 10 turns | run, ${TURNS} turns | ratio | list, alone | list, ${OTHERS} others | ratio | setup s`,
);
console.log('---------|---------------|----------------|-------|-------------|-------------------|-------|--------');
for (const r of rows) {
  console.log(
    `${r.kind.padEnd(8)} | ${f(r.runShort)}      | ${f(r.runLong)}       | ${(r.runLong / r.runShort).toFixed(2)}  | ${f(r.listAlone)}    | ${f(r.listCrowded)}          | ${(r.listCrowded / r.listAlone).toFixed(2)}  | ${r.seedSeconds.toFixed(1)}`,
  );
}
console.log('');
for (const r of rows) {
  console.log(`ratio ${r.kind} run ${TURNS}/10 turns: ${(r.runLong / r.runShort).toFixed(2)}`);
  console.log(`ratio ${r.kind} list ${OTHERS} others/none: ${(r.listCrowded / r.listAlone).toFixed(2)}`);
}
if (skipped.length) {
  console.log('\nwarning: not measured (the exit code says so too):');
  for (const line of skipped) console.log(`  ${line}`);
  process.exitCode = 1;
}
if (uncleared.length) {
  console.log(`\nwarning: namespace ${namespace} could not be deleted from:`);
  for (const line of uncleared) console.log(`  ${line}`);
  process.exitCode = 1;
}
