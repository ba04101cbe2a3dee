import { pollWhile } from '@agenthost/core/test';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { api, killAll, type StartedServer, startServer } from './test-process.js';

// Hostile json_format schemas against the standalone server as shipped (a process, echo model):
// patterns with nested quantifiers on inputs made to trip them, demands that multiply, $id/$ref games
// across accounts, huge enums. Whatever is sent, the server answers every request with an envelope,
// never a 5xx of its own, its event loop never stalls past 50 ms (the server's own measure, from
// /metrics), /healthz stays fast, and memory stays bounded. Runs alone (an isolated test file), so
// that no other test's load counts against the server. Fixed seed, printed; FC_SEED explores others.
const SEED = Number(process.env.FC_SEED ?? 20261124);
const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
const KEYS = { a: 'key-hostile-a-0123456789abcdef', b: 'key-hostile-b-0123456789abcdef' };

let server: StartedServer;
let origin: string;
const agents: Record<string, string> = {};

beforeAll(async () => {
  server = await startServer({ AGENTHOST_API_KEYS: `a:${KEYS.a},b:${KEYS.b}`, AGENTHOST_RATE_LIMIT: '0' });
  origin = server.url.replace(/\/api\/v1$/, '');
  for (const account of ['a', 'b'] as const) {
    agents[account] = (
      await api(server.url, KEYS[account], 'POST', '/agents', { name: 'J', instruction: 'JSON.', model: 'echo' })
    ).body.data.agent_id;
  }
});
afterAll(killAll);

const string = () => ({ type: 'string', maxLength: 100_000 });

/** Patterns that take exponential time on a backtracking engine, and inputs made to trip them. */
const evil = fc.record({
  pattern: fc.oneof(
    fc.constantFrom(
      '^(a+)+$',
      '^(a|a)*$',
      '^(a|aa)+$',
      '^(\\w+\\s?)*$',
      '^([a-zA-Z0-9])(([\\-.]|[_]+)?([a-zA-Z0-9]+))*(@){1}[a-z0-9]+[.]{1}(([a-z]{2,3})|([a-z]{2,3}[.]{1}[a-z]{2,3}))$',
      '(.*a){12}',
      '^(a?){25}a{25}$',
      '(?=a)a',
      '(a)\\1',
    ),
    fc.constantFrom('a', 'ab', '\\w', '[a-z]', '.').map((atom) => `^(${atom}+)+$`),
  ),
  input: fc.oneof(
    fc.integer({ min: 20, max: 5_000 }).map((n) => `${'a'.repeat(n)}!`),
    fc.constantFrom('aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!', `${'a '.repeat(500)}!`),
  ),
  where: fc.constantFrom('pattern', 'patternProperties', 'propertyNames'),
});
const patterns = evil.map(({ pattern, input, where }) => {
  const v = { type: 'string', maxLength: 100_000, pattern };
  if (where === 'pattern') return { schema: { type: 'object', properties: { v }, required: ['v'] }, input };
  if (where === 'patternProperties')
    return {
      schema: {
        type: 'object',
        patternProperties: { [pattern]: { type: 'string' } },
        propertyNames: { maxLength: 100_000 },
      },
      input,
    };
  return {
    schema: {
      type: 'object',
      propertyNames: { maxLength: 100_000, pattern },
      additionalProperties: { type: 'string' },
    },
    input,
  };
});

/** Arrays and objects whose demands multiply with depth. */
const multiplying = fc
  .record({
    depth: fc.integer({ min: 1, max: 9 }),
    count: fc.integer({ min: 2, max: 1_000 }),
    kind: fc.constantFrom('minItems', 'minProperties', 'required'),
  })
  .map(({ depth, count, kind }) => {
    let schema: Record<string, unknown> = string();
    for (let i = 0; i < depth; i++) {
      if (kind === 'minItems') schema = { type: 'array', minItems: count, items: schema };
      else if (kind === 'minProperties')
        schema = { type: 'object', minProperties: count, additionalProperties: schema };
      // Every property shares one child: a schema that doubles or more with each level, written out in full.
      else
        schema = {
          type: 'object',
          properties: Object.fromEntries(Array.from({ length: Math.min(count, 4) }, (_, j) => [`p${j}`, schema])),
          required: Array.from({ length: Math.min(count, 4) }, (_, j) => `p${j}`),
        };
    }
    return { schema, input: 'x' };
  });

/** $id and $ref games: the same ids in two accounts, refs to another account's ids, cycles, pointers. */
const references = fc
  .record({
    id: fc.constantFrom('https://acme.example/invoice', 'urn:shared', 'https://b.example/x#', 'relative/path'),
    field: fc.constantFrom('ssn', 'total', 'missing', '~0~1', '%25'),
  })
  .chain(({ id, field }) =>
    fc.constantFrom(
      { $id: id, type: 'object', properties: { [field]: string() }, required: [field] },
      { $ref: `${id}#/properties/${field}` },
      { $ref: '#' },
      { type: 'object', properties: { a: { $ref: '#' } }, required: ['a'] },
      { $defs: { x: { $ref: '#/$defs/y' }, y: { $ref: '#/$defs/x' } }, $ref: '#/$defs/x' },
      { $ref: `#/properties/${field}`, properties: { [field]: { enum: [1, 2] } } },
      { allOf: [{ $ref: id }, { $id: id }] },
    ),
  )
  .map((schema) => ({ schema, input: 'x' }));

/** One definition referred to from many places (which a validator that inlines references copies at each), and references of any text. */
const referring = fc.oneof(
  fc
    .record({ width: fc.integer({ min: 10, max: 60 }), uses: fc.integer({ min: 10, max: 1_000 }) })
    .map(({ width, uses }) => ({
      schema: {
        $defs: {
          L: {
            type: 'object',
            properties: Object.fromEntries(
              Array.from({ length: width }, (_, i) => [`q${i}`, { type: 'string', maxLength: 9 }]),
            ),
          },
        },
        type: 'object',
        properties: Object.fromEntries(Array.from({ length: uses }, (_, i) => [`p${i}`, { $ref: '#/$defs/L' }])),
      },
      input: 'x',
    })),
  fc
    .string({ maxLength: 40 })
    .map((ref) => ({ schema: { type: 'object', properties: { a: { $ref: ref } }, required: ['a'] }, input: 'x' })),
  fc
    .string({ maxLength: 40 })
    .map((ref) => ({ schema: { $ref: `#/${ref}`, $defs: { [ref]: { type: 'string' } } }, input: 'x' })),
);

/** Enums near the size limit, and many alternatives. */
const wide = fc
  .record({ n: fc.integer({ min: 100, max: 3_000 }), kind: fc.constantFrom('enum', 'anyOf', 'oneOf') })
  .map(({ n, kind }) => {
    if (kind === 'enum') return { schema: { enum: Array.from({ length: n }, (_, i) => `value-${i}`) }, input: 'x' };
    return {
      schema: {
        [kind]: Array.from({ length: Math.min(n, 600) }, (_, i) => ({
          type: 'object',
          properties: { [`k${i}`]: { const: i } },
          required: [`k${i}`],
        })),
      },
      input: 'x',
    };
  });

const hostile = fc.record({
  account: fc.constantFrom<'a' | 'b'>('a', 'b'),
  asText: fc.boolean(),
  run: fc.oneof(patterns, multiplying, references, referring, wide),
});

async function metric(name: string): Promise<number> {
  const text = await (await fetch(`${origin}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  if (!line) throw new Error(`no metric ${name}`);
  return Number(line.split(' ')[1]);
}

test('hostile json_format schemas never stall the event loop, exhaust memory or fail the server', async () => {
  console.log(`fast-check seed ${SEED}, ${RUNS} runs`);
  const cases = fc.sample(hostile, { seed: SEED, numRuns: RUNS });
  await metric('nodejs_eventloop_lag_max_seconds'); // resets the server's measure
  const heapBefore = await metric('nodejs_heap_size_used_bytes');

  const statuses = new Map<number, number>();
  const started = performance.now();
  const queue = [...cases];
  const fuzz = Promise.all(
    Array.from({ length: 4 }, async () => {
      for (let c = queue.shift(); c; c = queue.shift()) {
        const { account, asText, run } = c;
        const body = { input: run.input, json_format: asText ? JSON.stringify(run.schema) : run.schema };
        const res = await fetch(`${server.url}/agents/${agents[account]}/run`, {
          method: 'POST',
          headers: { 'x-api-key': KEYS[account], 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        const answer = (await res.json()) as { success: boolean; status: number };
        if (res.status === 500) console.log(`500 for ${JSON.stringify(body).slice(0, 600)}`);
        expect(answer.status).toBe(res.status);
        // 200, or the client's own mistake, or a load refusal; 502 only when the echo model's honest answer does not validate.
        expect([200, 400, 413, 429, 502, 503]).toContain(res.status);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      }
    }),
  );
  const { slowestMs: slowestHealthMs } = await pollWhile(`${origin}/healthz`, fuzz, { intervalMs: 10 });

  const lagMs = (await metric('nodejs_eventloop_lag_max_seconds')) * 1000;
  const heapGrowth = (await metric('nodejs_heap_size_used_bytes')) - heapBefore;
  const rss = await metric('process_resident_memory_bytes');
  console.log(
    `${RUNS} hostile runs in ${Math.round(performance.now() - started)} ms; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}; ` +
      `event loop max lag ${lagMs.toFixed(1)} ms; slowest /healthz ${slowestHealthMs.toFixed(1)} ms; heap growth ${(heapGrowth / 1e6).toFixed(1)} MB; RSS ${(rss / 1e6).toFixed(0)} MB`,
  );
  expect(lagMs).toBeLessThan(50);
  expect(slowestHealthMs).toBeLessThan(250);
  expect(heapGrowth).toBeLessThan(100e6);
  // The main heap plus two schema workers, each capped.
  expect(rss).toBeLessThan(1_000e6);
  // Nothing unexpected happened inside: no 500 logged, no worker or process out of memory.
  expect(server.stderr()).not.toMatch(/Unexpected error|out of memory|"level":60/);
}, 300_000);
