import { randomBytes } from 'node:crypto';
import { type FakeOpenAIServer, startFakeOpenAIServer } from '@agenthost/core/test';
import { openStore } from '@agenthost/storage';
import { clearPostgres, clearRedis, DATABASE_URL, REDIS_URL, runNamespace } from '@agenthost/storage/test';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { api, killAll, startServer } from './test-process.js';
import { eventually, readFrames } from './test-sse.js';

// A server killed (SIGKILL) while it runs a background run: another server marks the run `failed`
// (`server_lost`) within the documented bound, nothing of its turn is stored, and its session takes a
// new run. Isolated: the bound is a few seconds.
afterEach(killAll);

const KEY = 'key-background-crash-0123456789';
const LEASE_MS = 2_000;
/** The documented bound: the lease the dead server last renewed, a third of a lease of grace, half a lease for a sweep. */
const BOUND_MS = (LEASE_MS * 11) / 6;
/** What a loaded machine may add: the sweep's own store calls, and the polling below. */
const SLACK_MS = 2_000;
/** The lease of a Redis lock: a lost server's session is free again within it. */
const LOCK_LEASE_MS = 10_000;
let fake: FakeOpenAIServer;

beforeAll(async () => {
  fake = await startFakeOpenAIServer({
    reply: (request) => {
      const said = request.messages.at(-1)?.content ?? '';
      if (said !== 'forever') return { text: `Reply to: ${said}`, usage: { input: 3, output: 3 } };
      return {
        text: 'x '.repeat(600),
        chunks: Array(600).fill('x '),
        chunkDelayMs: 100,
        usage: { input: 3, output: 600 },
      };
    },
  });
});
afterAll(() => fake.close());

describe.each([
  ['Redis', REDIS_URL, clearRedis],
  ['PostgreSQL', DATABASE_URL, clearPostgres],
] as const)('a server on %s killed during a background run', (_name, store, clear) => {
  const namespace = runNamespace('background-crash');
  afterAll(() => clear(namespace));

  test('the run reads failed (server_lost) on the other server within the bound, and the session runs again', async () => {
    const account = `acct-${randomBytes(6).toString('hex')}`;
    const env = {
      AGENTHOST_STORE: store,
      AGENTHOST_STORE_NAMESPACE: namespace,
      AGENTHOST_API_KEYS: `${account}:${KEY}`,
      AGENTHOST_PROVIDERS: JSON.stringify({ slow: { baseURL: fake.baseURL, models: ['model'] } }),
      AGENTHOST_RUN_LEASE_MS: String(LEASE_MS),
      AGENTHOST_LOCK_LEASE_MS: String(LOCK_LEASE_MS),
    };
    const [a, b] = await Promise.all([startServer(env), startServer(env)]);
    const created = await api(b.url, KEY, 'POST', '/agents', { name: 'S', instruction: 'Go.', model: 'slow/model' });
    const agentId = created.body.data.agent_id as string;
    const before = fake.requests.length;
    const started = await api(a.url, KEY, 'POST', `/agents/${agentId}/run`, {
      input: 'forever',
      session_id: 'doomed',
      background: true,
    });
    const runId = started.body.data.run_id as string;
    // Running on A, its first events already out.
    await readFrames(`${b.url}/runs/${runId}/events`, KEY, { until: (f) => f.length === 2 });

    a.child.kill('SIGKILL');
    const killed = Date.now();
    expect(await a.exited).toBeNull();
    const lost = await eventually('the run to finish', async () => {
      const run = (await api(b.url, KEY, 'GET', `/runs/${runId}`)).body.data;
      return run.finished_at ? run : undefined;
    });
    const lostAfterMs = Date.now() - killed;
    expect(lost).toStrictEqual({
      run_id: runId,
      agent_id: agentId,
      session_id: 'doomed',
      status: 'failed',
      created_at: expect.any(String),
      started_at: expect.any(String),
      finished_at: expect.any(String),
      result: null,
      error: { code: 'server_lost', message: expect.any(String) },
      last_event_id: expect.any(Number),
    });
    expect(lostAfterMs).toBeLessThan(BOUND_MS + SLACK_MS);
    // The sweeper's own timestamp (same machine, so same clock): within the bound, with room only for
    // the sweep's store calls, whatever the polling above added.
    expect(Date.parse(lost.finished_at) - killed).toBeLessThanOrEqual(BOUND_MS + 500);
    expect(fake.requests[before]?.aborted).toBe(true);

    // Its events end with the error, numbered on from the last one A wrote.
    const frames = await readFrames(`${b.url}/runs/${runId}/events`, KEY);
    expect(frames.map((f) => f.id)).toStrictEqual(frames.map((_, i) => i + 1));
    expect(frames.at(-1)).toStrictEqual({
      id: lost.last_event_id,
      event: 'error',
      data: { success: false, error: lost.error.message, code: 'server_lost', status: 503 },
    });

    // The session is free again (on Redis once A's lock lease ran out) and holds the new turn only.
    const next = await api(b.url, KEY, 'POST', `/agents/${agentId}/run`, { input: 'again', session_id: 'doomed' });
    expect([next.status, next.body.data?.output]).toStrictEqual([200, 'Reply to: again']);
    expect(Date.now() - killed).toBeLessThan(LOCK_LEASE_MS + SLACK_MS);
    const opened = await openStore(store, { namespace });
    try {
      const stored = await opened.store.readMessages({ accountId: account, agentId, sessionId: 'doomed' });
      expect(stored.map((m) => [m.role, m.content])).toStrictEqual([
        ['user', 'again'],
        ['assistant', 'Reply to: again'],
      ]);
    } finally {
      await opened.close();
    }
  }, 120_000);
});
