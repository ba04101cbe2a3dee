import { afterEach, expect, test } from 'vitest';
import { api, killAll, startServer } from './test-process.js';

afterEach(killAll);
const KEY = 'key-logging-0123456789abcdef';

test('one JSON log line per request, with the request id the client saw; no key and no input text', async () => {
  const server = await startServer({ AGENTHOST_API_KEYS: `acme:${KEY}`, AGENTHOST_LOG_FORMAT: 'json' });
  const agentId = (await api(server.url, KEY, 'POST', '/agents', { name: 'A', instruction: 'Be brief.', model: 'echo' })).body.data.agent_id;
  const run = await fetch(`${server.url}/agents/${agentId}/run`, {
    method: 'POST',
    headers: { 'x-api-key': KEY, 'content-type': 'application/json', 'x-request-id': 'req-from-client-1' },
    body: JSON.stringify({ input: 'my secret input text' }),
  });
  expect(run.headers.get('x-request-id')).toBe('req-from-client-1');
  await run.text();
  const denied = await fetch(`${server.url}/agents`, { headers: { 'x-api-key': 'a-wrong-key-0123456789' } });
  await denied.text();
  await new Promise((resolve) => setTimeout(resolve, 300));

  const lines = server.stderr().trim().split('\n').map((l) => JSON.parse(l) as Record<string, any>);
  const runLine = lines.find((l) => l.request_id === 'req-from-client-1');
  expect(runLine).toMatchObject({
    level: 30,
    msg: `POST /api/v1/agents/${agentId}/run 200`,
    account: 'acme',
    run: { model: 'echo', tool_used: null, tokens: { prompt: 13, completion: 6, total: 19 } },
    res: { statusCode: 200 },
    req: { method: 'POST', url: `/api/v1/agents/${agentId}/run`, headers: { 'x-api-key': '[redacted]' } },
  });
  expect(typeof runLine!.responseTime).toBe('number');
  const deniedLine = lines.find((l) => l.request_id === denied.headers.get('x-request-id'));
  expect(deniedLine).toMatchObject({ msg: 'GET /api/v1/agents 401', res: { statusCode: 401 } });
  expect(deniedLine!.account).toBeUndefined();
  const all = server.stderr();
  for (const secret of [KEY, 'a-wrong-key-0123456789', 'my secret input text', 'Echo: my secret']) expect(all).not.toContain(secret);
}, 30_000);

test('with AGENTHOST_LOG_CONTENT a run line also holds its input and output; keys are still redacted', async () => {
  const server = await startServer({ AGENTHOST_API_KEYS: `acme:${KEY}`, AGENTHOST_LOG_FORMAT: 'json', AGENTHOST_LOG_CONTENT: 'true' });
  const agentId = (await api(server.url, KEY, 'POST', '/agents', { name: 'A', instruction: 'Be brief.', model: 'echo' })).body.data.agent_id;
  await api(server.url, KEY, 'POST', `/agents/${agentId}/run`, { input: 'logged on purpose' });
  await new Promise((resolve) => setTimeout(resolve, 300));
  const runLine = server
    .stderr()
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, any>)
    .find((l) => l.run);
  expect(runLine?.run).toMatchObject({ input: 'logged on purpose', output: 'Echo: logged on purpose' });
  expect(server.stderr()).not.toContain(KEY);
}, 30_000);
