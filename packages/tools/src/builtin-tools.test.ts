import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { builtinTools } from './builtin-tools.js';

const options = { toolCallId: 'call-1', messages: [], context: {} };

describe('builtinTools', () => {
  let server: Server;
  let baseURL: string;
  const seen: { path: string | undefined; authorization: string | undefined }[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push({ path: req.url, authorization: req.headers.authorization });
      req
        .resume()
        .on('end', () =>
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ results: [] })),
        );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  test('without a Tavily key: calculator and datetime, each one tool of its own name', () => {
    const tools = builtinTools();
    expect(tools.listTools()).toStrictEqual(['calculator', 'datetime']);
    expect([Object.keys(tools.tools('calculator')!), Object.keys(tools.tools('datetime')!)]).toStrictEqual([
      ['calculator'],
      ['datetime'],
    ]);
    expect([tools.tools('web_search'), tools.tools('toString'), tools.tools('__proto__')]).toStrictEqual([
      undefined,
      undefined,
      undefined,
    ]);
  });

  test('an empty key is no key', () => {
    expect(builtinTools({ tavilyApiKey: '' }).listTools()).toStrictEqual(['calculator', 'datetime']);
  });

  test('with a key web_search is offered and uses the key, base URL and fetch given', async () => {
    const fetched: string[] = [];
    const tools = builtinTools({
      tavilyApiKey: 'tvly-key',
      tavilyBaseURL: baseURL,
      fetch: (input, init) => {
        fetched.push(String(input));
        return fetch(input, init);
      },
    });
    expect(tools.listTools()).toStrictEqual(['calculator', 'datetime', 'web_search']);
    expect(await tools.tools('web_search')!.web_search!.execute!({ query: 'q' }, options)).toStrictEqual({
      query: 'q',
      results: [],
    });
    expect([fetched, seen]).toStrictEqual([
      [`${baseURL}/search`],
      [{ path: '/search', authorization: 'Bearer tvly-key' }],
    ]);
  });

  test('the clock given is the one datetime reads', async () => {
    const tools = builtinTools({ now: () => new Date('2026-11-22T10:00:00.000Z') });
    expect(await tools.tools('datetime')!.datetime!.execute!({ time_zone: 'Europe/Berlin' }, options)).toStrictEqual({
      time_zone: 'Europe/Berlin',
      iso: '2026-11-22T11:00:00.000+01:00',
      date: '2026-11-22',
      time: '11:00:00',
      weekday: 'Sunday',
      utc_offset: '+01:00',
    });
  });

  test('the calculator is the real one', async () => {
    expect(
      await builtinTools().tools('calculator')!.calculator!.execute!({ expression: '6 * 7' }, options),
    ).toStrictEqual({ expression: '6 * 7', result: 42 });
  });
});
