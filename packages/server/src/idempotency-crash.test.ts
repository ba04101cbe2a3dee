import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type FakeOpenAIServer, startFakeOpenAIServer } from '@agenthost/core/test';
import { afterAll, afterEach, beforeAll, expect, test } from 'vitest';
import { api, killAll, startServer } from './test-process.js';

afterEach(killAll);

const KEY = 'key-idempotency-crash-0123456789';
const dir = await mkdtemp(join(tmpdir(), 'agenthost-idempotency-'));
let fake: FakeOpenAIServer;
let hang = true;

beforeAll(async () => {
  fake = await startFakeOpenAIServer({ reply: () => (hang ? { hang: true } : { text: 'Answered.' }) });
});
afterAll(async () => {
  await fake.close();
  await rm(dir, { recursive: true, force: true });
});

async function retryWithKey(url: string, agentId: string) {
  const res = await fetch(`${url}/agents/${agentId}/run`, {
    method: 'POST',
    headers: { 'x-api-key': KEY, 'content-type': 'application/json', 'idempotency-key': 'crash-1' },
    body: JSON.stringify({ input: 'hello' }),
  });
  return {
    status: res.status,
    retryAfter: res.headers.get('retry-after'),
    body: (await res.json()) as { data?: { output?: string } } & Record<string, unknown>,
  };
}

test('the claim of a server killed mid-run lapses within seconds; meanwhile a retry gets 409 with Retry-After', async () => {
  const env = {
    AGENTHOST_STORE: `sqlite://${join(dir, 'agenthost.sqlite')}`,
    AGENTHOST_API_KEYS: `acme:${KEY}`,
    OPENAI_BASE_URL: fake.baseURL,
    OPENAI_MODELS: 'gpt-4o-mini',
  };
  const first = await startServer(env);
  const agentId = (
    await api(first.url, KEY, 'POST', '/agents', { name: 'A', instruction: 'Be brief.', model: 'gpt-4o-mini' })
  ).body.data.agent_id as string;
  void retryWithKey(first.url, agentId).catch(() => {});
  while (fake.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
  first.child.kill('SIGKILL');
  await first.exited;

  hang = false;
  const second = await startServer(env);
  const killedAt = Date.now();
  expect(await retryWithKey(second.url, agentId)).toStrictEqual({
    status: 409,
    retryAfter: '2',
    body: {
      success: false,
      error: 'A request with this Idempotency-Key is still in progress; retry later',
      code: 'conflict',
      status: 409,
    },
  });
  let answer = await retryWithKey(second.url, agentId);
  while (answer.status === 409 && Date.now() - killedAt < 30_000) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    answer = await retryWithKey(second.url, agentId);
  }
  const freedAfterMs = Date.now() - killedAt;
  console.log(`claim of the killed server freed after ${freedAfterMs} ms`);
  expect([answer.status, answer.body.data?.output]).toStrictEqual([200, 'Answered.']);
  // One lease (10 s) from the claim's last renewal, which was before the kill.
  expect(freedAfterMs).toBeLessThan(12_000);
  // The answer is now kept: a further retry is a replay.
  expect((await retryWithKey(second.url, agentId)).body).toStrictEqual(answer.body);
}, 60_000);
