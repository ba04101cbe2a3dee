import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clearPostgres, clearRedis, DATABASE_URL, REDIS_URL, runNamespace } from '@agenthost/storage/test';
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import { api, killAll, startServer } from './test-process.js';

afterEach(killAll);

const KEY = 'key-restart-0123456789abcdef';
const dir = await mkdtemp(join(tmpdir(), 'agenthost-restart-'));
const namespace = runNamespace('restart');
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await clearRedis(namespace);
  await clearPostgres(namespace);
});

describe.each([
  ['SQLite', `sqlite://${join(dir, 'data', 'agenthost.sqlite')}`],
  ['Redis', REDIS_URL],
  ['Postgres', DATABASE_URL],
])('a %s-backed server killed with SIGKILL', (_name, store) => {
  test('comes back with every agent and conversation, and conversations continue', async () => {
    const account = `acct-${randomBytes(6).toString('hex')}`;
    const env = {
      AGENTHOST_STORE: store,
      AGENTHOST_STORE_NAMESPACE: namespace,
      AGENTHOST_API_KEYS: `${account}:${KEY}`,
    };

    const before = await startServer(env);
    const created = await Promise.all(
      [1, 2, 3].map((i) =>
        api(before.url, KEY, 'POST', '/agents', { name: `agent ${i}`, instruction: 'Be brief.', model: 'echo' }),
      ),
    );
    const agentId = created[0]!.body.data.agent_id as string;
    const first = await api(before.url, KEY, 'POST', `/agents/${agentId}/run`, { input: 'one', session_id: 'kept' });
    const second = await api(before.url, KEY, 'POST', `/agents/${agentId}/run`, { input: 'two', session_id: 'kept' });
    const listBefore = await api(before.url, KEY, 'GET', '/agents');
    before.child.kill('SIGKILL');
    expect(await before.exited).toBeNull();

    const after = await startServer(env);
    expect(await api(after.url, KEY, 'GET', '/agents')).toStrictEqual(listBefore);
    expect(listBefore.body.data).toHaveLength(3);
    const third = await api(after.url, KEY, 'POST', `/agents/${agentId}/run`, { input: 'three', session_id: 'kept' });
    expect([first.status, second.status, third.status]).toStrictEqual([200, 200, 200]);
    // Each run's prompt holds every earlier turn: instruction + turns, growing by one turn each time.
    const prompts = [first, second, third].map((r) => r.body.data.metadata.tokens.prompt as number);
    expect(prompts[2]! - prompts[1]!).toBe(prompts[1]! - prompts[0]!);
    expect(prompts[1]!).toBeGreaterThan(prompts[0]!);
    expect(third.body.data.output).toBe('Echo: three');
  }, 60_000);
});
