import { PassThrough } from 'node:stream';
import { type FakeOpenAIServer, startFakeOpenAIServer } from '@agenthost/core/test';
import { pino } from 'pino';
import { afterEach, expect, test } from 'vitest';
import { createLogger, requestLineLogger, storageErrorLog } from './logging.js';
import { api, killAll, startServer } from './test-process.js';

let fake: FakeOpenAIServer | undefined;
afterEach(async () => {
  killAll();
  await fake?.close();
  fake = undefined;
});
const KEY = 'key-logging-0123456789abcdef';

/** A stream for a logger to write to, and what it has written. */
function captured() {
  const out = new PassThrough();
  let written = '';
  out.on('data', (chunk) => {
    written += chunk;
  });
  return { out, text: () => written };
}

test('one JSON log line per request, with the request id the client saw; no key and no input text', async () => {
  const server = await startServer({ AGENTHOST_API_KEYS: `acme:${KEY}`, AGENTHOST_LOG_FORMAT: 'json' });
  const agentId = (
    await api(server.url, KEY, 'POST', '/agents', { name: 'A', instruction: 'Be brief.', model: 'echo' })
  ).body.data.agent_id;
  const run = await fetch(`${server.url}/agents/${agentId}/run`, {
    method: 'POST',
    headers: {
      'x-api-key': KEY,
      'content-type': 'application/json',
      'x-request-id': 'req-from-client-1',
      authorization: 'Bearer a-bearer-secret-42',
      cookie: 'session=a-cookie-secret-42',
    },
    body: JSON.stringify({ input: 'my secret input text' }),
  });
  expect(run.headers.get('x-request-id')).toBe('req-from-client-1');
  await run.text();
  const denied = await fetch(`${server.url}/agents`, { headers: { 'x-api-key': 'a-wrong-key-0123456789' } });
  await denied.text();
  await new Promise((resolve) => setTimeout(resolve, 300));

  const lines = server
    .stderr()
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, any>);
  const runLine = lines.find((l) => l.request_id === 'req-from-client-1');
  expect(runLine).toMatchObject({
    level: 30,
    msg: `POST /api/v1/agents/${agentId}/run 200`,
    account: 'acme',
    run: { model: 'echo', tool_used: null, tools_used: [], tokens: { prompt: 13, completion: 6, total: 19 } },
    res: { statusCode: 200 },
  });
  expect(runLine!.req).toStrictEqual({
    method: 'POST',
    url: `/api/v1/agents/${agentId}/run`,
    remoteAddress: '127.0.0.1',
    headers: { 'user-agent': 'node', 'x-api-key': '[redacted]', authorization: '[redacted]', cookie: '[redacted]' },
  });
  expect(typeof runLine!.responseTime).toBe('number');
  const deniedLine = lines.find((l) => l.request_id === denied.headers.get('x-request-id'));
  expect(deniedLine).toMatchObject({ msg: 'GET /api/v1/agents 401', res: { statusCode: 401 } });
  expect(deniedLine!.account).toBeUndefined();
  const all = server.stderr();
  expect(deniedLine!.req.headers).toStrictEqual({ 'user-agent': 'node', 'x-api-key': '[redacted]' });
  for (const secret of [
    KEY,
    'a-wrong-key-0123456789',
    'my secret input text',
    'Echo: my secret',
    'a-bearer-secret-42',
    'a-cookie-secret-42',
  ])
    expect(all).not.toContain(secret);
}, 30_000);

test('with AGENTHOST_LOG_CONTENT a run line also holds its input and output; keys are still redacted', async () => {
  const server = await startServer({
    AGENTHOST_API_KEYS: `acme:${KEY}`,
    AGENTHOST_LOG_FORMAT: 'json',
    AGENTHOST_LOG_CONTENT: 'true',
  });
  const agentId = (
    await api(server.url, KEY, 'POST', '/agents', { name: 'A', instruction: 'Be brief.', model: 'echo' })
  ).body.data.agent_id;
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

test('a provider that echoes secrets: its error line names provider, status and code, and no configured secret is logged', async () => {
  // Shaped like no known key format, so that only the configuration can tell that they are secrets.
  const secrets = {
    OPENAI_API_KEY: 'openai-key-logging-0123456',
    TAVILY_API_KEY: 'search-key-logging-0123456',
    AGENTHOST_METRICS_TOKEN: 'metrics-token-logging-0123',
  };
  const echoed = `Incorrect API key provided: ${secrets.OPENAI_API_KEY}; search ${secrets.TAVILY_API_KEY}; metrics ${secrets.AGENTHOST_METRICS_TOKEN}; client ${KEY}`;
  fake = await startFakeOpenAIServer({
    reply: () => ({
      status: 401,
      body: { error: { message: echoed, type: 'invalid_request_error', code: 'invalid_api_key' } },
    }),
  });
  const server = await startServer({
    ...secrets,
    AGENTHOST_API_KEYS: `acme:${KEY}`,
    AGENTHOST_LOG_FORMAT: 'json',
    AGENTHOST_PROVIDER_RETRIES: '0',
    OPENAI_BASE_URL: fake.baseURL,
    OPENAI_API: 'chat',
    OPENAI_MODELS: 'gpt-4o-mini',
  });
  const agentId = (
    await api(server.url, KEY, 'POST', '/agents', { name: 'A', instruction: 'Be brief.', model: 'gpt-4o-mini' })
  ).body.data.agent_id;
  const run = await fetch(`${server.url}/agents/${agentId}/run`, {
    method: 'POST',
    headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ input: 'my private question' }),
  });
  expect(run.status).toBe(502);
  await run.text();
  const streamed = await fetch(`${server.url}/agents/${agentId}/run`, {
    method: 'POST',
    headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ input: 'my private question', stream: true }),
  });
  expect(await streamed.text()).toContain('event: error');
  await new Promise((resolve) => setTimeout(resolve, 300));

  const lines = server
    .stderr()
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, any>);
  const line = (requestId: string | null) => ({
    level: 50,
    time: expect.any(Number),
    pid: server.child.pid,
    hostname: expect.any(String),
    request_id: requestId,
    method: 'POST',
    path: `/api/v1/agents/${agentId}/run`,
    status: 502,
    err: {
      name: 'ProviderError',
      code: 'provider_error',
      message: 'The model provider failed to answer',
      provider: {
        name: 'openai.chat',
        host: new URL(fake!.baseURL).host,
        status: 401,
        code: 'invalid_api_key',
        message: 'Incorrect API key provided: [redacted]; search [redacted]; metrics [redacted]; client [redacted]',
      },
    },
    msg: 'The model provider failed to answer',
  });
  expect(lines.filter((l) => l.err?.provider)).toStrictEqual([
    line(run.headers.get('x-request-id')),
    line(streamed.headers.get('x-request-id')),
  ]);
  for (const secret of [...Object.values(secrets), KEY, 'my private question', 'Be brief.', 'invalid_request_error'])
    expect(server.stderr()).not.toContain(secret);
}, 60_000);

test('the standalone server stopped right after answering still writes every request line, whole', async () => {
  const server = await startServer({ AGENTHOST_API_KEYS: `acme:${KEY}`, AGENTHOST_LOG_FORMAT: 'json' });
  expect(await listAgents(server.url, 200)).toStrictEqual(Array(200).fill(200));
  // 'close' comes once the process's output is read to its end, after 'exit'.
  const closed = new Promise((resolve) => server.child.once('close', resolve));
  server.child.kill('SIGTERM');
  expect(await server.exited).toBe(0);
  await closed;
  expect(listLines(server.stderr())).toHaveLength(200);
}, 60_000);

/** The server with JSON request lines, and a per-key limit no test here reaches. */
function startLogged() {
  return startServer({
    AGENTHOST_API_KEYS: `acme:${KEY}`,
    AGENTHOST_LOG_FORMAT: 'json',
    AGENTHOST_RATE_LIMIT: '100000',
  });
}

/** The request lines of `GET /api/v1/agents` in a server's standard error (every line must be JSON). */
function listLines(stderr: string): { msg: string }[] {
  const lines = stderr
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { msg: string });
  return lines.filter((line) => line.msg === 'GET /api/v1/agents 200');
}

/** `count` requests of the agent list, all at once; their statuses. */
async function listAgents(url: string, count: number): Promise<number[]> {
  return Promise.all(
    Array.from({ length: count }, async () => {
      const answer = await fetch(`${url}/agents`, { headers: { 'x-api-key': KEY } });
      await answer.text();
      return answer.status;
    }),
  );
}

/** The server, answering 2,000 requests while its standard error is not read: the pipe fills up (it holds a fraction of their lines). */
async function answeredUnread() {
  const server = await startLogged();
  server.child.stderr!.pause();
  expect(await listAgents(server.url, 2000)).toStrictEqual(Array(2000).fill(200));
  return server;
}

test('a reader of the log that stops reading neither stalls the server nor loses a line', async () => {
  const server = await answeredUnread();
  const closed = new Promise((resolve) => server.child.once('close', resolve));
  server.child.kill('SIGTERM');
  server.child.stderr!.resume();
  expect(await server.exited).toBe(0);
  await closed;
  expect(listLines(server.stderr())).toHaveLength(2000);
}, 60_000);

test('a reader of the log that never reads again does not keep the server from stopping', async () => {
  const server = await answeredUnread();
  const started = Date.now();
  server.child.kill('SIGTERM');
  // It waits 2 s for its lines to be written, then tries for 1 s more as it exits, then gives up.
  expect(await server.exited).toBe(0);
  const took = Date.now() - started;
  expect(took).toBeGreaterThanOrEqual(2000); // it did wait: the pipe was full
  expect(took).toBeLessThan(10_000);
  expect(server.stdout()).toContain('agenthost: stopped');
}, 60_000);

test('with the readers of its output and log gone, the server goes on answering and stops cleanly when asked', async () => {
  const server = await startLogged();
  server.child.stdout!.destroy();
  server.child.stderr!.destroy();
  expect(await listAgents(server.url, 500)).toStrictEqual(Array(500).fill(200));
  // It stops while answering: nothing of the log can be written, and nothing of it holds the stop up.
  const statuses = listAgents(server.url, 500);
  const started = Date.now();
  server.child.kill('SIGTERM');
  await statuses.catch(() => {});
  expect(await server.exited).toBe(0);
  expect(Date.now() - started).toBeLessThan(10_000);
}, 60_000);

test('a storage connection error is logged with its secrets redacted', () => {
  const logged: unknown[] = [];
  const log = storageErrorLog({ error: (fields, message) => logged.push([fields, message]) }, ['store-pass-0123']);
  log(new Error('connect to redis://:store-pass-0123@cache:6379 refused; auth token=abc'));
  log('Bearer abc.def.ghi-jkl store-pass-0123');
  expect(logged).toStrictEqual([
    [
      { err: 'Error: connect to redis://[redacted]@cache:6379 refused; auth token=[redacted]' },
      'Storage connection error',
    ],
    [{ err: 'Bearer [redacted] [redacted]' }, 'Storage connection error'],
  ]);
});

test('the logger redacts keys, credentials and cookies on any line that holds a request', async () => {
  const { out, text } = captured();
  const logger = createLogger({ level: 'info', pretty: false, destination: out });
  logger.info(
    { req: { headers: { 'x-api-key': 'k-secret-1', authorization: 'Bearer t-secret-2', cookie: 'c-secret-3' } } },
    'an app line',
  );
  logger.flush();
  await new Promise((resolve) => setImmediate(resolve));
  expect(JSON.parse(text()).req).toStrictEqual({
    headers: { 'x-api-key': '[redacted]', authorization: '[redacted]', cookie: '[redacted]' },
  });
});

test("a child logger with serializers of its own still redacts keys (as another request logger's would be)", async () => {
  const { out, text } = captured();
  const logger = createLogger({ level: 'info', pretty: false, destination: out });
  const child = logger.child({}, { serializers: { req: (req: unknown) => req, res: (res: unknown) => res } });
  child.info(
    { req: { headers: { 'x-api-key': 'k-secret-1' } }, res: { headers: { 'set-cookie': 's-secret-2' } } },
    'line',
  );
  child.child({ req: { headers: { authorization: 'Bearer t-secret-3' } } }).info('bound');
  logger.flush();
  await new Promise((resolve) => setImmediate(resolve));
  expect(text()).not.toMatch(/secret/);
  expect(
    text()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line).req.headers),
  ).toStrictEqual([{ 'x-api-key': '[redacted]' }, { authorization: '[redacted]' }]);
});

test("request lines go through the host's logger without its redaction, and through another logger with that logger's", async () => {
  const { out, text } = captured();
  const own = pino({ redact: ['req.remoteAddress'] }, out);
  expect(requestLineLogger(own)).toBe(own);
  const host = createLogger({ level: 'info', pretty: false, destination: out });
  const lines = requestLineLogger(host);
  expect(lines).not.toBe(host);
  // A field the host's redaction would change, to show which redaction the line met.
  lines.info({ req: { headers: { 'x-api-key': 'shown' } } }, 'host');
  requestLineLogger(own).info({ req: { remoteAddress: '10.0.0.1' } }, 'own');
  await new Promise((resolve) => setImmediate(resolve));
  expect(
    text()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line).req),
  ).toStrictEqual([{ headers: { 'x-api-key': 'shown' } }, { remoteAddress: '[Redacted]' }]);
  // The host's logger, and its children made after, still redact.
  const after = captured();
  const again = createLogger({ level: 'info', pretty: false, destination: after.out });
  requestLineLogger(again);
  again.info({ req: { headers: { 'x-api-key': 'k-secret-1' } } }, 'parent');
  again.child({}).info({ req: { headers: { 'x-api-key': 'k-secret-2' } } }, 'child');
  await new Promise((resolve) => setImmediate(resolve));
  expect(
    after
      .text()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line).req),
  ).toStrictEqual([{ headers: { 'x-api-key': '[redacted]' } }, { headers: { 'x-api-key': '[redacted]' } }]);
});
