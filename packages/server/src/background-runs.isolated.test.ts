import { randomBytes } from 'node:crypto';
import { type FakeOpenAIRequest, type FakeOpenAIServer, startFakeOpenAIServer } from '@agenthost/core/test';
import { openStore } from '@agenthost/storage';
import { clearPostgres, clearRedis, DATABASE_URL, REDIS_URL, runNamespace } from '@agenthost/storage/test';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { api, killAll, type StartedServer, startServer } from './test-process.js';
import { eventually, readFrames, type SseFrame } from './test-sse.js';

// Two servers on one store, a background run on A read and cancelled from B: the events of a run
// reach every server, a resumed reader gets each later event once, and a cancel from anywhere stops
// the run where it runs. Isolated: the cancel is held to about a second.
afterEach(killAll);

const KEY = 'key-background-0123456789abcdef';
/** The slow answer: 24 pieces, 250 ms apart (6 s in all: still going seconds after its third event). */
const PIECES = Array.from({ length: 24 }, (_, i) => `piece${i} `);
const ANSWER = PIECES.join('');
let fake: FakeOpenAIServer;

/** `slowly` gets the 24 pieces; `forever` 600 pieces 100 ms apart (a minute: it is cancelled first). */
function reply(request: FakeOpenAIRequest) {
  const said = request.messages.at(-1)?.content ?? '';
  const usage = { input: 5, output: 24 };
  if (said === 'forever') return { text: 'x '.repeat(600), chunks: Array(600).fill('x '), chunkDelayMs: 100, usage };
  return { text: ANSWER, chunks: PIECES, chunkDelayMs: 250, usage };
}

beforeAll(async () => {
  fake = await startFakeOpenAIServer({ reply });
});
afterAll(() => fake.close());

interface Pair {
  a: StartedServer;
  b: StartedServer;
  agentId: string;
  account: string;
}

async function twoServers(store: string, namespace: string): Promise<Pair> {
  const account = `acct-${randomBytes(6).toString('hex')}`;
  const env = {
    AGENTHOST_STORE: store,
    AGENTHOST_STORE_NAMESPACE: namespace,
    AGENTHOST_API_KEYS: `${account}:${KEY}`,
    AGENTHOST_PROVIDERS: JSON.stringify({ slow: { baseURL: fake.baseURL, models: ['model'] } }),
  };
  const [a, b] = await Promise.all([startServer(env), startServer(env)]);
  const created = await api(b.url, KEY, 'POST', '/agents', {
    name: 'Slow',
    instruction: 'Go slowly.',
    model: 'slow/model',
  });
  return { a, b, agentId: created.body.data.agent_id as string, account };
}

/** What a background run is right after it was accepted. */
const accepted = (agentId: string) => ({
  run_id: expect.stringMatching(/^run_/),
  agent_id: agentId,
  session_id: expect.any(String),
  status: 'queued',
  created_at: expect.any(String),
  started_at: null,
  finished_at: null,
  result: null,
  error: null,
  last_event_id: 0,
});

const texts = (frames: SseFrame[]) =>
  frames
    .filter((f) => f.event === 'text-delta')
    .map((f) => f.data.delta as string)
    .join('');

async function messagesOf(store: string, namespace: string, pair: Pair, sessionId: string) {
  const opened = await openStore(store, { namespace });
  try {
    const stored = await opened.store.readMessages({ accountId: pair.account, agentId: pair.agentId, sessionId });
    return stored.map((m) => [m.role, m.content]);
  } finally {
    await opened.close();
  }
}

/** The gauge of background runs a server serves at /metrics: [queued, running]. */
async function gauge(server: StartedServer): Promise<number[]> {
  const text = await (await fetch(server.url.replace(/\/api\/v1$/, '/metrics'))).text();
  return ['queued', 'running'].map((status) => {
    const line = text.split('\n').find((l) => l.startsWith(`agenthost_background_runs{status="${status}"} `));
    return Number(line?.split(' ')[1]);
  });
}

/** A run on A, three events read on B, the rest on A after `Last-Event-ID: 3`: each event once, in order. */
async function resumeAcrossServers(store: string, namespace: string, pair: Pair): Promise<string> {
  const { a, b, agentId } = pair;
  const started = await api(a.url, KEY, 'POST', `/agents/${agentId}/run`, { input: 'slowly', background: true });
  expect(started).toStrictEqual({ status: 202, body: { success: true, data: accepted(agentId), status: 202 } });
  const run = started.body.data as { run_id: string; session_id: string };

  const first = await readFrames(`${b.url}/runs/${run.run_id}/events`, KEY, { until: (f) => f.length === 3 });
  // Still running as the reader resumes: the rest of its events reach it live, not from a finished run.
  expect((await api(a.url, KEY, 'GET', `/runs/${run.run_id}`)).body.data.status).toBe('running');
  const rest = await readFrames(`${a.url}/runs/${run.run_id}/events`, KEY, { headers: { 'last-event-id': '3' } });
  const all = [...first, ...rest];
  expect(all.map((f) => f.id)).toStrictEqual(all.map((_, i) => i + 1));
  expect(first.map((f) => f.event)).toStrictEqual(['text-delta', 'text-delta', 'text-delta']);
  expect(rest.at(-1)?.event).toBe('done');
  expect(texts(all)).toBe(ANSWER);
  expect(rest.at(-1)?.data.output).toBe(ANSWER);

  // Read again from the start on B, after the end: the same events, ids and data.
  expect(await readFrames(`${b.url}/runs/${run.run_id}/events?after=0`, KEY)).toStrictEqual(all);
  const finished = await api(b.url, KEY, 'GET', `/runs/${run.run_id}`);
  expect(finished.body.data).toStrictEqual({
    ...accepted(agentId),
    run_id: run.run_id,
    session_id: run.session_id,
    status: 'completed',
    started_at: expect.any(String),
    finished_at: expect.any(String),
    result: rest.at(-1)?.data,
    last_event_id: all.length,
  });
  expect(await messagesOf(store, namespace, pair, run.session_id)).toStrictEqual([
    ['user', 'slowly'],
    ['assistant', ANSWER],
  ]);
  return run.run_id;
}

/** A long run on A, cancelled from B: it stops within about a second, and nothing of its turn is stored. */
async function cancelAcrossServers(store: string, namespace: string, pair: Pair): Promise<string> {
  const { a, b, agentId } = pair;
  const before = fake.requests.length;
  const started = await api(a.url, KEY, 'POST', `/agents/${agentId}/run`, { input: 'forever', background: true });
  const run = started.body.data as { run_id: string; session_id: string };
  const request = await eventually('the provider to be asked', () => fake.requests[before]);
  await readFrames(`${b.url}/runs/${run.run_id}/events`, KEY, { until: (f) => f.length === 2 });
  // Each server counts the runs it runs.
  expect([await gauge(a), await gauge(b)]).toStrictEqual([
    [0, 1],
    [0, 0],
  ]);

  const asked = Date.now();
  const cancelled = await api(b.url, KEY, 'POST', `/runs/${run.run_id}/cancel`);
  const answeredMs = Date.now() - asked;
  expect(cancelled.status).toBe(200);
  expect(cancelled.body.data).toStrictEqual({
    ...accepted(agentId),
    run_id: run.run_id,
    session_id: run.session_id,
    status: 'cancelled',
    started_at: expect.any(String),
    finished_at: expect.any(String),
    error: { code: 'cancelled', message: 'The run was cancelled' },
    last_event_id: expect.any(Number),
  });
  expect(answeredMs).toBeLessThan(1_000);
  // A stopped its model call: the provider saw the request go away, long before its end.
  await eventually('the provider to see the request aborted', () => request.aborted, 1_000);
  expect(request.completed).toBe(false);
  await eventually('A to count no run', async () => (await gauge(a)).join() === '0,0');

  const frames = await readFrames(`${a.url}/runs/${run.run_id}/events`, KEY);
  expect(frames.map((f) => f.id)).toStrictEqual(frames.map((_, i) => i + 1));
  expect(frames.at(-1)).toStrictEqual({
    id: cancelled.body.data.last_event_id,
    event: 'error',
    data: { success: false, error: 'The run was cancelled', code: 'cancelled', status: 409 },
  });
  expect(await messagesOf(store, namespace, pair, run.session_id)).toStrictEqual([]);
  return run.run_id;
}

describe.each([
  ['Redis', REDIS_URL, clearRedis],
  ['PostgreSQL', DATABASE_URL, clearPostgres],
] as const)('two servers on one %s', (_name, store, clear) => {
  const namespace = runNamespace('background');
  afterAll(() => clear(namespace));

  test('a run on A read on B, resumed on A with Last-Event-ID; another cancelled from B stops on A', async () => {
    const pair = await twoServers(store, namespace);
    const completed = await resumeAcrossServers(store, namespace, pair);
    const cancelled = await cancelAcrossServers(store, namespace, pair);
    // Both servers list the agent's runs alike, newest first.
    for (const server of [pair.a, pair.b]) {
      const listed = await api(server.url, KEY, 'GET', `/agents/${pair.agentId}/runs`);
      expect(listed.body.data.runs.map((r: { run_id: string; status: string }) => [r.run_id, r.status])).toStrictEqual([
        [cancelled, 'cancelled'],
        [completed, 'completed'],
      ]);
    }
  }, 120_000);
});
