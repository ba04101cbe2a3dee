import { type FakeOpenAIServer, startFakeOpenAIServer } from '@agenthost/core/test';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type AgentHost, createAgentHost } from './host.js';
import { api } from './test-process.js';

// AGENTHOST_RUN_EVENT_READERS reaches the service: one more event stream than it allows is 429.
const KEY = 'key-event-readers-0123456789';
let fake: FakeOpenAIServer;
let host: AgentHost;
let url: string;

beforeAll(async () => {
  fake = await startFakeOpenAIServer({
    reply: () => ({
      text: 'x '.repeat(100),
      chunks: Array(100).fill('x '),
      chunkDelayMs: 100,
      usage: { input: 1, output: 100 },
    }),
  });
  host = await createAgentHost(
    {
      store: 'memory',
      apiKeys: `acme:${KEY}`,
      port: 0,
      openaiBaseUrl: fake.baseURL,
      openaiModels: ['slow'],
      runEventReaders: 1,
    },
    { requestLog: false, logger: pino({ level: 'silent' }) },
  );
  url = (await host.listen()).url;
});
afterAll(async () => {
  await host?.close({ deadlineMs: 0 });
  await fake?.close();
});

test('AGENTHOST_RUN_EVENT_READERS=1: a second event stream of the account on this server is 429', async () => {
  const agent = await api(url, KEY, 'POST', '/agents', { name: 'S', instruction: 'Go.', model: 'openai/slow' });
  const run = await api(url, KEY, 'POST', `/agents/${agent.body.data.agent_id}/run`, { input: 'hi', background: true });
  const reading = new AbortController();
  const first = await fetch(`${url}/runs/${run.body.data.run_id}/events`, {
    headers: { 'x-api-key': KEY },
    signal: reading.signal,
  });
  expect(first.status).toBe(200);
  const second = await api(url, KEY, 'GET', `/runs/${run.body.data.run_id}/events`);
  expect(second).toStrictEqual({
    status: 429,
    body: {
      success: false,
      error: expect.stringContaining('1 run event streams open'),
      code: 'rate_limited',
      status: 429,
    },
  });
  reading.abort();
});
