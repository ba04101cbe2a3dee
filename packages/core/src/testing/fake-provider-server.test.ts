import { afterEach, beforeEach, expect, test } from 'vitest';
import { type FakeOpenAIServer, startFakeOpenAIServer } from './fake-openai-server.js';

let fake: FakeOpenAIServer;
beforeEach(async () => {
  fake = await startFakeOpenAIServer({
    reply: () => ({ text: 'a b c d e f', chunks: ['a ', 'b ', 'c ', 'd ', 'e ', 'f'], chunkDelayMs: 50 }),
  });
});
afterEach(() => fake.close());

const ask = (signal?: AbortSignal) =>
  fetch(`${fake.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    ...(signal && { signal }),
  });

test('a stream read to its end is completed, not aborted', async () => {
  const text = await (await ask()).text();
  expect(text).toContain('data: [DONE]');
  expect(fake.requests.map((r) => [r.completed, r.aborted])).toStrictEqual([[true, false]]);
});

test('a client that goes away mid-stream leaves its request aborted and not completed', async () => {
  const controller = new AbortController();
  const response = await ask(controller.signal);
  const reader = response.body!.getReader();
  await reader.read();
  controller.abort();
  for (let i = 0; i < 200 && !fake.requests[0]!.aborted; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(fake.requests.map((r) => [r.completed, r.aborted])).toStrictEqual([[false, true]]);
});
