import { randomBytes } from 'node:crypto';
import { openStore } from '@agenthost/storage';
import { clearPostgres, clearRedis, DATABASE_URL, REDIS_URL, runNamespace } from '@agenthost/storage/test';
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import { api, killAll, type StartedServer, startServer } from './test-process.js';

// Several servers behind a load balancer, sharing one Redis or one Postgres: nothing may be lost.
afterEach(killAll);

const KEY = 'key-scale-out-0123456789abcdef';
const range = (n: number) => Array.from({ length: n }, (_, i) => i);
const agentBody = (i: number) => ({ name: `agent ${i}`, instruction: 'Answer briefly.', model: 'echo' });

interface Outcome {
  listed: number[];
  created: string[];
  history: { role: string; content: string }[];
  runStatuses: number[];
  prompts: number[];
}

/** Spreads 200 creates and then 50 runs of one session over two servers, and reads back what was kept. */
async function load(store: string, namespace: string, extraEnv: Record<string, string> = {}): Promise<Outcome> {
  const account = `acct-${randomBytes(6).toString('hex')}`;
  const env = {
    AGENTHOST_STORE: store,
    AGENTHOST_STORE_NAMESPACE: namespace,
    AGENTHOST_API_KEYS: `${account}:${KEY}`,
    ...extraEnv,
  };
  const servers: StartedServer[] = await Promise.all([startServer(env), startServer(env)]);
  const on = (i: number) => servers[i % 2]!.url;

  const creates = await Promise.all(range(200).map((i) => api(on(i), KEY, 'POST', '/agents', agentBody(i))));
  expect(creates.map((r) => r.status)).toStrictEqual(range(200).map(() => 200));
  const created = creates.map((r) => r.body.data.agent_id as string);
  const listed = await Promise.all(
    servers.map(async (s) => (await api(s.url, KEY, 'GET', '/agents')).body.data.length as number),
  );

  const agentId = created[0]!;
  const runs = await Promise.all(
    range(50).map((i) =>
      api(on(i), KEY, 'POST', `/agents/${agentId}/run`, { input: `run ${i}`, session_id: 'shared-session' }),
    ),
  );
  const opened = await openStore(store, { namespace });
  try {
    const history = await opened.store.readMessages({ accountId: account, agentId, sessionId: 'shared-session' });
    return {
      listed,
      created,
      history: history.map(({ role, content }) => ({ role, content })),
      runStatuses: runs.map((r) => r.status),
      prompts: runs.map((r) => r.body.data?.metadata.tokens.prompt as number),
    };
  } finally {
    await opened.close();
  }
}

/** True when the history is 50 whole turns, each input directly followed by its reply, none missing. */
function wholeTurns(history: Outcome['history']): boolean {
  if (history.length !== 100) return false;
  const seen = new Set<string>();
  for (let j = 0; j < history.length; j += 2) {
    const [q, a] = [history[j]!, history[j + 1]!];
    if (q.role !== 'user' || a.role !== 'assistant' || a.content !== `Echo: ${q.content}`) return false;
    seen.add(q.content);
  }
  return seen.size === 50;
}

describe.each([
  ['Redis', REDIS_URL, clearRedis],
  ['Postgres', DATABASE_URL, clearPostgres],
] as const)('two servers on one %s', (_name, store, clear) => {
  const namespaces: string[] = [];
  afterAll(async () => {
    for (const ns of namespaces) await clear(ns);
  });

  test('200 concurrent creates and 50 concurrent runs of one session lose nothing', async () => {
    const namespace = runNamespace('scale');
    namespaces.push(namespace);
    const outcome = await load(store, namespace);
    expect(outcome.listed).toStrictEqual([200, 200]);
    expect(outcome.runStatuses).toStrictEqual(range(50).map(() => 200));
    expect(wholeTurns(outcome.history)).toBe(true);
    // Runs took turns: each saw a different number of earlier turns, so no two prompts are the same size.
    expect(new Set(outcome.prompts).size).toBe(50);
  }, 120_000);

  test('the same load with the locks switched off loses writes (so the test above can fail)', async () => {
    const namespace = runNamespace('scale-unlocked');
    namespaces.push(namespace);
    const outcome = await load(store, namespace, { AGENTHOST_UNSAFE_DISABLE_LOCKS: 'true' });
    const lostAgents = outcome.listed.some((n) => n < 200);
    const lostTurns = !wholeTurns(outcome.history);
    expect({ lostAgents, lostTurns, listed: outcome.listed, messages: outcome.history.length }).toMatchObject({
      lostAgents: true,
      lostTurns: true,
    });
  }, 120_000);
});
