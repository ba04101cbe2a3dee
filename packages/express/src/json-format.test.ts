import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { formatError, type JsonFormatServer, startJsonFormatServer } from './json-format-fixture.js';

// Clients' JSON Schemas over HTTP: what one request with a hostile `json_format` could do to the server
// (exhaust it, or tell one account something of another's), each reproduced here. What it could do to
// the server's responsiveness is measured alone, in json-format-timing.isolated.test.ts.
const KEYS = { a: 'key-json-format-a-0123456789', b: 'key-json-format-b-0123456789' };
let fixture: JsonFormatServer;
beforeAll(async () => {
  fixture = await startJsonFormatServer(KEYS);
});
afterAll(() => fixture.close());

const run = (account: keyof typeof KEYS, json_format: unknown, input?: string) =>
  fixture.run(account, json_format, input);

describe('json_format is private to its account', () => {
  const invoice = (field: string) => ({
    $id: 'https://acme.example/invoice',
    type: 'object',
    properties: { [field]: { type: 'string' } },
    required: [field],
  });

  test("another account's $id neither blocks nor answers a $ref", async () => {
    expect((await run('b', invoice('total'))).status).toBe(200);
    const mine = await run('a', invoice('ssn'));
    expect([mine.status, JSON.parse(mine.body.data.output)]).toStrictEqual([200, { ssn: 'hello' }]);
    const probe = (field: string) => run('b', { $ref: `https://acme.example/invoice#/properties/${field}` });
    expect(await probe('ssn')).toStrictEqual({
      status: 400,
      body: formatError(
        "json_format is not a valid JSON Schema: can't resolve reference https://acme.example/invoice#/properties/ssn from id #",
      ),
    });
    expect(await probe('nothing')).toStrictEqual({
      status: 400,
      body: formatError(
        "json_format is not a valid JSON Schema: can't resolve reference https://acme.example/invoice#/properties/nothing from id #",
      ),
    });
  });

  test('a $ref that is not a valid JSON pointer is a 400, not a 500', async () => {
    const answer = await run('a', { $ref: '#/%' });
    expect([answer.status, answer.body.details.json_format.message]).toStrictEqual([
      400,
      expect.stringMatching(/^json_format is not a valid JSON Schema: /),
    ]);
  });

  test("3,000 distinct schemas from one account, then 3,000 from another: the heap stays flat and the first account's schema still works", async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const heap = () => {
      gc();
      return process.memoryUsage().heapUsed;
    };
    const mine = invoice('ssn');
    expect((await run('a', mine)).status).toBe(200);
    const before = heap();
    const rssBefore = process.memoryUsage().rss;
    const properties = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`p${i}`, { type: 'string' }]));
    for (const account of ['a', 'b'] as const) {
      for (let i = 0; i < 3000; i += 10) {
        const batch = Array.from({ length: 10 }, (_, j) =>
          run(account, { type: 'object', properties: { ...properties, [`x${i + j}`]: { type: 'number' } } }),
        );
        expect((await Promise.all(batch)).map((r) => r.status)).toStrictEqual(Array.from({ length: 10 }, () => 200));
      }
    }
    const grown = heap() - before;
    const rssGrown = process.memoryUsage().rss - rssBefore;
    console.log(
      `after 6,000 distinct schemas: heap growth ${(grown / 1e6).toFixed(1)} MB, process memory growth ${(rssGrown / 1e6).toFixed(1)} MB`,
    );
    expect(grown).toBeLessThan(100e6);
    // The schema workers' heaps are outside the main heap: each is capped, so the process stays bounded too.
    expect(rssGrown).toBeLessThan(400e6);
    const again = await run('a', mine);
    expect([again.status, JSON.parse(again.body.data.output)]).toStrictEqual([200, { ssn: 'hello' }]);
  }, 120_000);
});
