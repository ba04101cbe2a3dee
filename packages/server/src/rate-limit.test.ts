import { randomBytes } from 'node:crypto';
import { clearRedis, REDIS_URL, runNamespace } from '@agenthost/storage/test';
import { afterAll, afterEach, expect, test } from 'vitest';
import { killAll, startServer } from './test-process.js';

afterEach(killAll);
const namespace = runNamespace('ratelimit');
afterAll(() => clearRedis(namespace));

test("two servers on one Redis hold a key's rate limit together", async () => {
  const key = `key-${randomBytes(12).toString('hex')}`;
  const env = {
    AGENTHOST_STORE: REDIS_URL,
    AGENTHOST_STORE_NAMESPACE: namespace,
    AGENTHOST_API_KEYS: `acme:${key}`,
    AGENTHOST_RATE_LIMIT: '100',
  };
  const servers = await Promise.all([startServer(env), startServer(env)]);
  const statuses: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      for (let i = next++; i < 300; i = next++) {
        const res = await fetch(`${servers[i % 2]!.url}/agents`, { headers: { 'x-api-key': key } });
        statuses.push(res.status);
        await res.arrayBuffer();
      }
    }),
  );
  const accepted = statuses.filter((s) => s === 200).length;
  expect(new Set(statuses)).toStrictEqual(new Set([200, 429]));
  expect(accepted).toBeGreaterThanOrEqual(100);
  expect(accepted).toBeLessThanOrEqual(105);
}, 60_000);
