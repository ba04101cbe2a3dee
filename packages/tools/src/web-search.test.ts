import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { type WebSearchToolOptions, webSearchTool } from './web-search.js';

const API_KEY = 'tvly-test-0123456789abcdef';

interface RecordedRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  contentType: string | undefined;
  body: unknown;
}

type Reply = { status: number; body: string } | { hang: true };

let server: Server;
let baseURL: string;
let requests: RecordedRequest[];
let reply: Reply;

const tavilyBody = {
  query: 'agenthost',
  answer: null,
  images: [],
  results: [
    { title: 'First', url: 'https://example.com/1', content: '  An extract.  ', score: 0.91, raw_content: null },
    { title: 'Second', url: 'https://example.com/2', content: 'x'.repeat(1500), score: 0.5, raw_content: null },
  ],
  response_time: 0.4,
};

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      requests.push({
        method: req.method ?? '',
        path: req.url ?? '',
        authorization: req.headers.authorization,
        contentType: req.headers['content-type'],
        body: text ? (JSON.parse(text) as unknown) : undefined,
      });
      if ('hang' in reply) return;
      res.writeHead(reply.status, { 'content-type': 'application/json' }).end(reply.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  requests = [];
  reply = { status: 200, body: JSON.stringify(tavilyBody) };
});

function search(query: string, options: Partial<WebSearchToolOptions> = {}): Promise<unknown> {
  const tool = webSearchTool({ apiKey: API_KEY, baseURL, ...options });
  return Promise.resolve(tool.execute!({ query }, { toolCallId: 'call-1', messages: [], context: {} }));
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof Error)) throw new Error(`expected an Error, got ${String(error)}`);
  return error;
}

describe('web_search', () => {
  test('posts the query with the key as a bearer token and returns trimmed results', async () => {
    expect(await search('agenthost')).toStrictEqual({
      query: 'agenthost',
      results: [
        { title: 'First', url: 'https://example.com/1', content: 'An extract.', score: 0.91 },
        { title: 'Second', url: 'https://example.com/2', content: `${'x'.repeat(999)}…`, score: 0.5 },
      ],
    });
    expect(requests).toStrictEqual([
      {
        method: 'POST',
        path: '/search',
        authorization: `Bearer ${API_KEY}`,
        contentType: 'application/json',
        body: { query: 'agenthost', max_results: 5, search_depth: 'basic' },
      },
    ]);
  });

  test('maxResults is sent and also bounds what is returned; a trailing slash on the base URL is fine', async () => {
    expect(await search('agenthost', { maxResults: 1, baseURL: `${baseURL}/` })).toStrictEqual({
      query: 'agenthost',
      results: [{ title: 'First', url: 'https://example.com/1', content: 'An extract.', score: 0.91 }],
    });
    expect(requests.map((r) => [r.path, r.body])).toStrictEqual([
      ['/search', { query: 'agenthost', max_results: 1, search_depth: 'basic' }],
    ]);
  });

  test('a custom fetch is used', async () => {
    const seen: string[] = [];
    const fetchSpy: typeof fetch = (input, init) => {
      seen.push(String(input));
      return fetch(input, init);
    };
    await search('agenthost', { fetch: fetchSpy });
    expect(seen).toStrictEqual([`${baseURL}/search`]);
  });

  test("401 is an error with the status and Tavily's reason, without the key", async () => {
    reply = { status: 401, body: JSON.stringify({ detail: { error: `Unauthorized: invalid API key ${API_KEY}` } }) };
    const error = await failure(search('agenthost'));
    expect(error.message).toStrictEqual('Web search failed with HTTP 401: Unauthorized: invalid API key [redacted]');
    expect(JSON.stringify({ message: error.message, stack: error.stack, cause: String(error.cause) })).not.toContain(
      API_KEY,
    );
  });

  test('500 with a body that is not JSON is an error with the status', async () => {
    reply = { status: 500, body: 'upstream exploded' };
    expect(await failure(search('agenthost'))).toStrictEqual(
      new Error('Web search failed with HTTP 500: upstream exploded'),
    );
  });

  test('a success that is not JSON, or has no results list, is an error', async () => {
    reply = { status: 200, body: '<html>' };
    expect(await failure(search('agenthost'))).toStrictEqual(
      new Error('Web search returned a response that is not JSON'),
    );
    reply = { status: 200, body: JSON.stringify({ detail: 'nothing' }) };
    expect(await failure(search('agenthost'))).toStrictEqual(
      new Error('Web search returned a response without a results list'),
    );
  });

  test('a server that does not answer in time is a timeout error', async () => {
    reply = { hang: true };
    const started = Date.now();
    expect(await failure(search('agenthost', { timeoutMs: 200 }))).toStrictEqual(
      new Error('Web search timed out after 200 ms'),
    );
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(requests).toHaveLength(1);
  });

  test('a refused connection is an error naming the code only', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    expect(await failure(search('agenthost', { baseURL: `http://127.0.0.1:${port}` }))).toStrictEqual(
      new Error('Web search request failed (ECONNREFUSED)'),
    );
  });

  test('a blank query is refused without a request', async () => {
    expect(await failure(search('   '))).toStrictEqual(new Error('The search query is empty'));
    expect(requests).toStrictEqual([]);
  });

  test('options are checked when the tool is made', () => {
    expect(() => webSearchTool({ apiKey: '' })).toThrow(new TypeError('webSearchTool needs a Tavily API key'));
    expect(() => webSearchTool({ apiKey: API_KEY, maxResults: 0 })).toThrow(
      new RangeError('maxResults must be an integer from 1 to 20'),
    );
  });

  test('through generateText the model receives the parsed results', async () => {
    const usage = {
      inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: 1, text: 1, reasoning: 0 },
    };
    const model = new MockLanguageModelV4({
      doGenerate: [
        {
          content: [
            { type: 'tool-call', toolCallId: 'call-1', toolName: 'web_search', input: '{"query":"agenthost"}' },
          ],
          finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
          usage,
          warnings: [],
        },
        {
          content: [{ type: 'text', text: 'found it' }],
          finishReason: { unified: 'stop', raw: 'stop' },
          usage,
          warnings: [],
        },
      ],
    });
    reply = { status: 200, body: JSON.stringify({ results: [tavilyBody.results[0]] }) };
    const result = await generateText({
      model,
      tools: { web_search: webSearchTool({ apiKey: API_KEY, baseURL }) },
      prompt: 'Search',
      stopWhen: stepCountIs(3),
    });
    expect(result.text).toStrictEqual('found it');
    expect(model.doGenerateCalls[1]!.prompt.at(-1)).toStrictEqual({
      role: 'tool',
      providerOptions: undefined,
      content: [
        {
          type: 'tool-result',
          toolCallId: 'call-1',
          toolName: 'web_search',
          providerOptions: undefined,
          output: {
            type: 'json',
            value: {
              query: 'agenthost',
              results: [{ title: 'First', url: 'https://example.com/1', content: 'An extract.', score: 0.91 }],
            },
          },
        },
      ],
    });
  });
});
