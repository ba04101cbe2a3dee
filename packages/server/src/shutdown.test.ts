import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type FakeOpenAIServer, startFakeOpenAIServer } from '@agenthost/core/test';
import { openStore } from '@agenthost/storage';
import { afterAll, afterEach, beforeEach, expect, test } from 'vitest';
import { api, killAll, startServer } from './test-process.js';

const KEY = 'key-shutdown-0123456789abcdef';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const dir = await mkdtemp(join(tmpdir(), 'agenthost-shutdown-'));
let fake: FakeOpenAIServer;
let delayMs = 0;

beforeEach(async () => {
  fake = await startFakeOpenAIServer({
    reply: async (request) => {
      await sleep(delayMs);
      return { text: `done: ${request.messages.at(-1)?.content}`, usage: { input: 5, output: 2 } };
    },
  });
});
afterEach(async () => {
  killAll();
  await fake.close();
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function setup(store: string, extra: Record<string, string> = {}) {
  const server = await startServer({
    AGENTHOST_API_KEYS: `acme:${KEY}`,
    AGENTHOST_STORE: store,
    OPENAI_BASE_URL: fake.baseURL,
    OPENAI_MODELS: 'slow-model',
    ...extra,
  });
  const agentId = (
    await api(server.url, KEY, 'POST', '/agents', { name: 'Slow', instruction: 'Take your time.', model: 'slow-model' })
  ).body.data.agent_id as string;
  return { server, agentId };
}

test('SIGTERM lets 20 slow runs finish and store their turns, refuses new connections, and exits 0', async () => {
  const store = `sqlite://${join(dir, 'drain.sqlite')}`;
  const { server, agentId } = await setup(store);
  const origin = server.url.replace(/\/api\/v1$/, '');
  expect((await fetch(`${origin}/readyz`)).status).toBe(200);
  delayMs = 1_500;
  const runs = Array.from({ length: 20 }, (_, i) =>
    api(server.url, KEY, 'POST', `/agents/${agentId}/run`, { input: `run ${i}`, session_id: `s${i}` }),
  );
  for (let i = 0; i < 100 && fake.requests.length < 20; i++) await sleep(20);
  expect(fake.requests.length).toBe(20);
  server.child.kill('SIGTERM');
  await sleep(200);
  await expect(fetch(`${origin}/healthz`)).rejects.toThrow();
  const answers = await Promise.all(runs);
  expect(answers.map((a) => a.status)).toStrictEqual(Array.from({ length: 20 }, () => 200));
  expect(await server.exited).toBe(0);
  expect(server.stdout()).toContain('agenthost: stopped\n');
  const opened = await openStore(store);
  try {
    for (let i = 0; i < 20; i++) {
      expect(
        (await opened.store.readMessages({ accountId: 'acme', agentId, sessionId: `s${i}` })).map((m) => m.content),
      ).toStrictEqual([`run ${i}`, `done: run ${i}`]);
    }
  } finally {
    await opened.close();
  }
}, 60_000);

test('past the shutdown deadline, runs still going are aborted and nothing of them is stored', async () => {
  const store = `sqlite://${join(dir, 'deadline.sqlite')}`;
  const { server, agentId } = await setup(store, { AGENTHOST_SHUTDOWN_TIMEOUT_MS: '300' });
  delayMs = 5_000;
  const runs = Array.from({ length: 5 }, (_, i) =>
    api(server.url, KEY, 'POST', `/agents/${agentId}/run`, { input: `late ${i}`, session_id: `late${i}` }).catch(
      (e: Error) => e.name,
    ),
  );
  for (let i = 0; i < 100 && fake.requests.length < 5; i++) await sleep(20);
  const started = Date.now();
  server.child.kill('SIGTERM');
  expect(await server.exited).toBe(0);
  expect(Date.now() - started).toBeLessThan(4_000);
  expect(server.stdout()).toContain(
    'agenthost: aborted 5 request(s) still running at the deadline; nothing of them was stored\n',
  );
  expect((await Promise.all(runs)).every((r) => r === 'TypeError')).toBe(true);
  const opened = await openStore(store);
  try {
    for (let i = 0; i < 5; i++)
      expect(await opened.store.readMessages({ accountId: 'acme', agentId, sessionId: `late${i}` })).toStrictEqual([]);
  } finally {
    await opened.close();
  }
}, 60_000);
