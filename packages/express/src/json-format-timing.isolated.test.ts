import { pollWhile } from '@agenthost/core/test';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { formatError, type JsonFormatServer, startJsonFormatServer } from './json-format-fixture.js';

// The findings that blocked the whole server through one `json_format`, with the bounds the fix must
// meet: an answer within 100 ms and /healthz within 50 ms meanwhile. Runs alone (an isolated test
// file), so no other test's load counts against the server.
let fixture: JsonFormatServer;
beforeAll(async () => {
  fixture = await startJsonFormatServer({ a: 'key-json-format-timing-0123456789' });
});
afterAll(() => fixture.close());

const run = (json_format: unknown, input: string, model = 'echo') => fixture.run('a', json_format, input, model);

const redos = {
  type: 'object',
  properties: { v: { type: 'string', maxLength: 64, pattern: '^(a+)+$' } },
  required: ['v'],
};

describe('json_format cannot block the server', () => {
  test('a nested-quantifier pattern on a 40-character echo answers within 100 ms with a 400; /healthz under 50 ms', async () => {
    await run({ type: 'string' }, 'warm'); // the agent exists and a sandbox worker is up
    const started = performance.now();
    const { result, slowestMs: slowestHealthMs } = await pollWhile(
      `${fixture.origin}/healthz`,
      run(redos, `${'a'.repeat(39)}!`),
    );
    const tookMs = performance.now() - started;
    console.log(`ReDoS repro: ${tookMs.toFixed(1)} ms, slowest /healthz ${slowestHealthMs.toFixed(1)} ms`);
    expect(result).toStrictEqual({
      status: 400,
      body: formatError('The echo model answers with the input, which does not match the pattern of /v'),
    });
    // A backtracking engine takes seconds here, and never returns at 40 characters.
    expect(tookMs).toBeLessThan(100);
    expect(slowestHealthMs).toBeLessThan(50);
  });

  test('the same pattern over a real provider answer is a quick 502, and a matching answer is a 200', async () => {
    const { result, slowestMs: slowestHealthMs } = await pollWhile(
      `${fixture.origin}/healthz`,
      run(redos, `${'a'.repeat(39)}!`, 'gpt-4o-mini'),
    );
    expect(result).toStrictEqual({
      status: 502,
      body: { success: false, error: 'The model provider failed to answer', code: 'provider_error', status: 502 },
    });
    expect(slowestHealthMs).toBeLessThan(50);
    const ok = await run(redos, 'aaaa', 'gpt-4o-mini');
    expect([ok.status, ok.body.data.output]).toStrictEqual([200, '{"v":"aaaa"}']);
  });

  test('arrays of 16 nested six deep are refused within 100 ms, before anything is built', async () => {
    let nested: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 6; i++) nested = { type: 'array', minItems: 16, items: nested };
    const started = performance.now();
    const answer = await run(nested, 'x');
    expect(performance.now() - started).toBeLessThan(100);
    expect(answer).toStrictEqual({
      status: 400,
      body: formatError(
        'json_format asks for an answer longer than a run can produce (its smallest valid answer is over 16384 characters: 4 per token of the 4096-token output limit)',
      ),
    });
  });
});
