import { randomBytes } from 'node:crypto';
import { type FakeOpenAIServer, startFakeOpenAIServer } from '@agenthost/core/test';
import { openStore } from '@agenthost/storage';
import { clearRedis, REDIS_URL, runNamespace } from '@agenthost/storage/test';
import { afterAll, afterEach, beforeAll, expect, test } from 'vitest';
import { api, killAll, startServer } from './test-process.js';
import { eventually, readFrames, type SseFrame } from './test-sse.js';

// A server stopped with SIGTERM while it runs background runs: they get the shutdown deadline to
// finish; past it, they end `failed` (`server_lost`) at once, storing nothing, rather than a lease later.
afterEach(killAll);

const KEY = 'key-shutdown-background-0123456789';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const namespace = runNamespace('shutdown-background');
let fake: FakeOpenAIServer;
let delayMs = 0;

beforeAll(async () => {
  fake = await startFakeOpenAIServer({
    reply: async (request) => {
      // A minute of pieces, 100 ms apart: a run whose events keep coming.
      if (request.messages.at(-1)?.content === 'forever')
        return {
          text: 'x '.repeat(600),
          chunks: Array(600).fill('x '),
          chunkDelayMs: 100,
          usage: { input: 5, output: 600 },
        };
      await sleep(delayMs);
      return { text: `done: ${request.messages.at(-1)?.content}`, usage: { input: 5, output: 2 } };
    },
  });
});
afterAll(async () => {
  await fake.close();
  await clearRedis(namespace);
});

/** A server on the shared Redis, an agent on the fake, and a way to read what the store kept. */
async function setup(extra: Record<string, string> = {}) {
  const account = `acct-${randomBytes(6).toString('hex')}`;
  const env = {
    AGENTHOST_API_KEYS: `${account}:${KEY}`,
    AGENTHOST_STORE: REDIS_URL,
    AGENTHOST_STORE_NAMESPACE: namespace,
    OPENAI_BASE_URL: fake.baseURL,
    OPENAI_MODELS: 'slow-model',
  };
  const server = await startServer({ ...env, ...extra });
  const created = await api(server.url, KEY, 'POST', '/agents', {
    name: 'S',
    instruction: 'Wait.',
    model: 'slow-model',
  });
  const agentId = created.body.data.agent_id as string;
  const kept = async (runIds: string[], sessions: string[]) => {
    const opened = await openStore(REDIS_URL, { namespace });
    try {
      const runs = await Promise.all(runIds.map((id) => opened.runs.getRun(account, id)));
      const messages = await Promise.all(
        sessions.map(async (sessionId) =>
          (await opened.store.readMessages({ accountId: account, agentId, sessionId })).map((m) => m.content),
        ),
      );
      return { runs: runs.map((r) => [r?.status, r?.error?.code ?? null]), messages };
    } finally {
      await opened.close();
    }
  };
  return { server, agentId, kept, env };
}

async function startRuns(url: string, agentId: string, count: number, prefix: string) {
  const started = [];
  for (let i = 0; i < count; i++) {
    const run = await api(url, KEY, 'POST', `/agents/${agentId}/run`, {
      input: `${prefix} ${i}`,
      session_id: `${prefix}${i}`,
      background: true,
    });
    started.push(run.body.data.run_id as string);
  }
  return started;
}

test('SIGTERM lets background runs finish within the deadline and store their turns, then exits 0', async () => {
  const { server, agentId, kept } = await setup();
  delayMs = 1_500;
  const before = fake.requests.length;
  const runIds = await startRuns(server.url, agentId, 3, 'bg');
  await eventually('the provider to be asked three times', () => fake.requests.length - before === 3);
  server.child.kill('SIGTERM');
  expect(await server.exited).toBe(0);
  expect(await kept(runIds, ['bg0', 'bg1', 'bg2'])).toStrictEqual({
    runs: [
      ['completed', null],
      ['completed', null],
      ['completed', null],
    ],
    messages: [
      ['bg 0', 'done: bg 0'],
      ['bg 1', 'done: bg 1'],
      ['bg 2', 'done: bg 2'],
    ],
  });
}, 60_000);

test('past the deadline, background runs still going end failed (server_lost) at once and store nothing', async () => {
  const { server, agentId, kept } = await setup({ AGENTHOST_SHUTDOWN_TIMEOUT_MS: '300' });
  delayMs = 20_000;
  const before = fake.requests.length;
  const runIds = await startRuns(server.url, agentId, 2, 'late');
  await eventually('the provider to be asked twice', () => fake.requests.length - before === 2);
  const stopped = Date.now();
  server.child.kill('SIGTERM');
  expect(await server.exited).toBe(0);
  // Well before the 10 s run lease could have run out: the server ended its runs itself.
  expect(Date.now() - stopped).toBeLessThan(5_000);
  expect(await kept(runIds, ['late0', 'late1'])).toStrictEqual({
    runs: [
      ['failed', 'server_lost'],
      ['failed', 'server_lost'],
    ],
    messages: [[], []],
  });
}, 60_000);

test('SIGTERM ends the event streams read through the server at once: with no run of its own, it exits long before the deadline', async () => {
  // The run goes on on A; B, stopped with a 20 s deadline, only has a reader of its events open.
  const { server: a, agentId, env } = await setup();
  const b = await startServer({ ...env, AGENTHOST_SHUTDOWN_TIMEOUT_MS: '20000' });
  const started = await api(a.url, KEY, 'POST', `/agents/${agentId}/run`, { input: 'forever', background: true });
  const runId = started.body.data.run_id as string;
  const frames: SseFrame[] = [];
  const reading = readFrames(`${b.url}/runs/${runId}/events`, KEY, {
    until: (read) => {
      frames.splice(0, frames.length, ...read);
      return false;
    },
  });
  await eventually('the reader on B to get events', () => frames.length >= 2);

  const stopped = Date.now();
  b.child.kill('SIGTERM');
  // The stream ends (no error, no last event: the run is not over), and B exits without cutting it.
  const read = await reading;
  expect(Date.now() - stopped).toBeLessThan(5_000);
  expect(read.map((f) => f.id)).toStrictEqual(read.map((_, i) => i + 1));
  expect(read.every((f) => f.event === 'text-delta')).toBe(true);
  expect(await b.exited).toBe(0);
  expect(Date.now() - stopped).toBeLessThan(5_000);
  expect(b.stderr()).not.toContain('aborted');
  // The reader resumes on A after the last event it got, and the run still goes on there.
  const resumed = await readFrames(`${a.url}/runs/${runId}/events`, KEY, {
    headers: { 'last-event-id': String(read.at(-1)!.id) },
    until: (more) => more.length === 1,
  });
  expect(resumed.map((f) => f.id)).toStrictEqual([read.length + 1]);
  expect((await api(a.url, KEY, 'GET', `/runs/${runId}`)).body.data.status).toBe('running');
}, 60_000);
