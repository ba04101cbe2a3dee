import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, expect, test } from 'vitest';
import { type ApiResult, api, killAll, startServer } from './test-process.js';

// A Redis of the test's own (its own port and data directory), so stopping it disturbs nothing else.
afterEach(killAll);

const KEY = 'key-outage-0123456789abcdef';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const dir = await mkdtemp(join(tmpdir(), 'agenthost-outage-'));
let redis: ChildProcess | undefined;
afterAll(async () => {
  redis?.kill('SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function startRedis(port: number): Promise<ChildProcess> {
  // Every acknowledged write is on disk before the reply, so a restart keeps whatever was confirmed.
  const child = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      dir,
      '--appendonly',
      'yes',
      '--appendfsync',
      'always',
      '--save',
      '',
    ],
    { stdio: 'ignore' },
  );
  for (let i = 0; i < 100; i++) {
    const probe = await fetch(`http://127.0.0.1:${port}`).catch(
      (e: Error & { cause?: { code?: string } }) => e.cause?.code,
    );
    if (probe !== 'ECONNREFUSED') return child;
    await sleep(50);
  }
  throw new Error('redis-server did not start');
}

test('Redis stopped under load: 503s while down, no crash, no unstored 2xx, back without a restart', async () => {
  const port = await freePort();
  redis = await startRedis(port);
  const account = `acct-${randomBytes(6).toString('hex')}`;
  // Rate limiting stays on (its counters live in the same Redis) at a limit this load cannot reach.
  const server = await startServer({
    AGENTHOST_STORE: `redis://127.0.0.1:${port}`,
    AGENTHOST_API_KEYS: `${account}:${KEY}`,
    AGENTHOST_RATE_LIMIT: '1000000',
  });
  const { body } = await api(server.url, KEY, 'POST', '/agents', {
    name: 'steady',
    instruction: 'Be brief.',
    model: 'echo',
  });
  const agentId = body.data.agent_id as string;

  const confirmed: string[] = [];
  const results: { status: number; ms: number; phase: string }[] = [];
  let phase = 'up';
  let running = true;
  const worker = async (w: number) => {
    for (let i = 0; running; i++) {
      const started = Date.now();
      const startedIn = phase;
      let r: ApiResult;
      if (i % 3 === 0) {
        r = await api(server.url, KEY, 'POST', '/agents', { name: `w${w}-${i}`, instruction: 'x', model: 'echo' });
        if (r.status === 200) confirmed.push(r.body.data.agent_id);
      } else if (i % 3 === 1) {
        r = await api(server.url, KEY, 'POST', `/agents/${agentId}/run`, { input: `w${w}-${i}`, session_id: `s${w}` });
      } else {
        r = await api(server.url, KEY, 'GET', '/agents');
      }
      results.push({ status: r.status, ms: Date.now() - started, phase: startedIn });
      expect(r.body.status).toBe(r.status);
      await sleep(10);
    }
  };
  const load = Promise.all([0, 1, 2, 3].map(worker));

  await sleep(800);
  phase = 'down';
  redis.kill('SIGKILL');
  await sleep(2500);
  phase = 'restarting';
  redis = await startRedis(port);
  let recovered = false;
  for (let i = 0; i < 100 && !recovered; i++) {
    recovered = (await api(server.url, KEY, 'GET', '/agents')).status === 200;
    if (!recovered) await sleep(100);
  }
  phase = 'back';
  await sleep(800);
  running = false;
  await load;

  expect(recovered).toBe(true);
  expect(server.child.exitCode).toBeNull();
  const down = results.filter((r) => r.phase === 'down');
  expect(down.length).toBeGreaterThan(10);
  expect(down.filter((r) => r.status !== 503)).toStrictEqual([]);
  expect(new Set(results.map((r) => r.status))).toStrictEqual(new Set([200, 503]));
  // While Redis is down every request answers within the command and connect timeouts.
  expect(Math.max(...down.map((r) => r.ms))).toBeLessThan(8_000);
  // Locks whose release failed during the outage are released as soon as Redis is back.
  expect(Math.max(...results.map((r) => r.ms))).toBeLessThan(8_000);
  expect(results.filter((r) => r.phase === 'back').every((r) => r.status === 200)).toBe(true);
  // Every create that answered 200 is stored.
  const listed = new Set(
    ((await api(server.url, KEY, 'GET', '/agents')).body.data as { agent_id: string }[]).map((a) => a.agent_id),
  );
  expect(confirmed.filter((id) => !listed.has(id))).toStrictEqual([]);
  expect(confirmed.length).toBeGreaterThan(5);
}, 60_000);
