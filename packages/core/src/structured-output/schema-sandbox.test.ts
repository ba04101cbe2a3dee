import { afterAll, describe, expect, test, vi } from 'vitest';
import { agentHostError as rejection } from '../testing/rejection.js';
import { SchemaSandbox } from './schema-sandbox.js';

const sandbox = new SchemaSandbox();
afterAll(() => sandbox.close());

const text = (schema: unknown) => JSON.stringify(schema);
const invoice = (field: string) =>
  text({
    $id: 'https://acme.example/invoice',
    type: 'object',
    properties: { [field]: { type: 'string' } },
    required: [field],
  });

// One definition referred to from a thousand places: copied into the code at each, it compiles to
// some 50 MB and fills a worker's heap; referred to by call, it compiles in a fraction of a second.
const referredOften = text({
  $defs: {
    L: {
      type: 'object',
      properties: Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`q${i}`, { type: 'string', maxLength: 9 }])),
    },
  },
  type: 'object',
  properties: Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`p${i}`, { $ref: '#/$defs/L' }])),
});

describe('SchemaSandbox', () => {
  test('a nested-quantifier pattern runs in linear time: a long non-matching value is refused at once', async () => {
    const schema = text({ type: 'string', maxLength: 100_000, pattern: '^(a+)+$' });
    const started = performance.now();
    expect(await sandbox.validate('acme', schema, `${'a'.repeat(50_000)}!`)).toStrictEqual({
      ok: false,
      mismatch: '/ must match pattern "^(a+)+$"',
    });
    expect(await sandbox.validate('acme', schema, 'aaaa')).toStrictEqual({ ok: true });
    // Backtracking engines take exponential time here; a linear one takes milliseconds.
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  test('a pattern the linear-time engine cannot run is refused with a 400-class error', async () => {
    const error = await rejection(sandbox.check('acme', text({ type: 'string', maxLength: 9, pattern: '(a)\\1' })));
    expect(error.code).toBe('invalid_input');
    expect(error.details).toStrictEqual({
      json_format: {
        message:
          'json_format has a pattern this server cannot run (patterns run on a linear-time engine, without lookaround or backreferences): error parsing regexp: invalid escape sequence: `\\1`',
        path: ['json_format'],
      },
    });
  });

  test('two accounts may use the same $id for different schemas; each is checked against its own', async () => {
    await sandbox.check('a', invoice('ssn'));
    await sandbox.check('b', invoice('total'));
    expect(await sandbox.validate('a', invoice('ssn'), { ssn: 'x' })).toStrictEqual({ ok: true });
    expect(await sandbox.validate('b', invoice('total'), { total: 'x' })).toStrictEqual({ ok: true });
    expect(await sandbox.validate('b', invoice('total'), { ssn: 'x' })).toStrictEqual({
      ok: false,
      mismatch: "/ must have required property 'total'",
    });
  });

  test('a $ref outside the schema is refused the same way whether another account has that schema or not', async () => {
    await sandbox.check('a', invoice('ssn'));
    const probe = (field: string) => text({ $ref: `https://acme.example/invoice#/properties/${field}` });
    const [exists, missing] = await Promise.all([
      rejection(sandbox.check('b', probe('ssn'))),
      rejection(sandbox.check('b', probe('nothing'))),
    ]);
    expect(exists.details?.json_format?.message).toBe(
      "json_format is not a valid JSON Schema: can't resolve reference https://acme.example/invoice#/properties/ssn from id #",
    );
    expect(missing.details?.json_format?.message).toBe(
      "json_format is not a valid JSON Schema: can't resolve reference https://acme.example/invoice#/properties/nothing from id #",
    );
  });

  test("an account's schema still works after hundreds of other schemas were compiled", async () => {
    await sandbox.check('a', invoice('ssn'));
    for (let i = 0; i < 200; i++)
      await sandbox.check(
        'b',
        text({ $id: `https://b.example/${i}`, type: 'object', properties: { [`p${i}`]: { type: 'number' } } }),
      );
    expect(await sandbox.validate('a', invoice('ssn'), { ssn: 'x' })).toStrictEqual({ ok: true });
  });
});

describe('SchemaSandbox: costly schemas', () => {
  test('a schema that refers to itself without end is refused, not a crash', async () => {
    const error = await rejection(sandbox.validate('acme', text({ $ref: '#' }), 'x'));
    expect([error.code, error.details]).toStrictEqual([
      'invalid_input',
      {
        json_format: {
          message: 'json_format cannot be checked: it refers back to itself without end',
          path: ['json_format'],
        },
      },
    ]);
  });

  test('a definition referred to from a thousand places compiles once, not a thousand times', async () => {
    expect(referredOften.length).toBeLessThan(32_768);
    await sandbox.check('acme', referredOften);
    expect(await sandbox.validate('acme', referredOften, { p1: { q1: 'x' } })).toStrictEqual({ ok: true });
  });

  test("one account's costly schemas delay another account's by at most one task", async () => {
    const one = new SchemaSandbox({ threads: 1 });
    try {
      const done: string[] = [];
      const variant = (i: number) => referredOften.replace('"q0"', `"q0x${i}"`);
      const attacker = Array.from({ length: 4 }, (_, i) =>
        one.check('attacker', variant(i)).then(() => done.push(`attacker ${i}`)),
      );
      await new Promise((resolve) => setTimeout(resolve, 20));
      await one.check('victim', text({ type: 'string' })).then(() => done.push('victim'));
      await Promise.all(attacker);
      expect(done).toStrictEqual(['attacker 0', 'victim', 'attacker 1', 'attacker 2', 'attacker 3']);
    } finally {
      await one.close();
    }
  });

  test('draft 2020-12 schemas are understood', async () => {
    const tuple = text({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'array',
      prefixItems: [{ type: 'string' }],
      items: false,
    });
    expect(await sandbox.validate('acme', tuple, ['x'])).toStrictEqual({ ok: true });
    expect(await sandbox.validate('acme', tuple, ['x', 'y'])).toStrictEqual({
      ok: false,
      mismatch: '/ must NOT have more than 1 items',
    });
  });
});

describe('SchemaSandbox: limits', () => {
  test('an account with too much waiting is told to slow down; other accounts are not', async () => {
    const small = new SchemaSandbox({ maxPerAccount: 2 });
    try {
      const many = Array.from({ length: 5 }, (_, i) =>
        small.check('busy', text({ type: 'object', properties: { [`p${i}`]: { type: 'string' } } })).then(
          () => 'ok',
          (e: { code: string }) => e.code,
        ),
      );
      const other = small.check('calm', text({ type: 'string' })).then(() => 'ok');
      expect(await Promise.all([...many, other])).toStrictEqual([
        'ok',
        'ok',
        'rate_limited',
        'rate_limited',
        'rate_limited',
        'ok',
      ]);
    } finally {
      await small.close();
    }
  });

  test('a task past its deadline is stopped, answered as overloaded, and the next task works', async () => {
    const hurried = new SchemaSandbox({ compileTimeoutMs: 1 });
    const relaxed = new SchemaSandbox();
    try {
      const big = text({
        type: 'object',
        properties: Object.fromEntries(
          Array.from({ length: 150 }, (_, i) => [`p${i}`, { type: 'array', items: { type: 'string', maxLength: 4 } }]),
        ),
      });
      const error = await rejection(hurried.check('acme', big));
      expect({ code: error.code, message: error.message, retry: error.retryAfterSeconds }).toStrictEqual({
        code: 'overloaded',
        message: 'json_format could not be checked within 1 ms; retry later, or send a smaller schema',
        retry: 1,
      });
      await relaxed.check('acme', big);
    } finally {
      await Promise.all([hurried.close(), relaxed.close()]);
    }
  });

  test("a task's deadline leaves no timer behind once the task is done", async () => {
    const timeouts = vi.spyOn(AbortSignal, 'timeout');
    const set = vi.spyOn(globalThis, 'setTimeout');
    const cleared = vi.spyOn(globalThis, 'clearTimeout');
    try {
      // A schema no other test compiles: no cached answer, a task runs.
      await sandbox.check('acme', invoice('deadline_probe'));
      expect(timeouts).not.toHaveBeenCalled();
      // The task's own deadline (the sandbox's 2,000 ms to compile) was set once, and cleared when it ended.
      const deadlines = set.mock.calls.flatMap(([, ms], i) => (ms === 2_000 ? [set.mock.results[i]?.value] : []));
      expect(deadlines).toHaveLength(1);
      expect(cleared.mock.calls.map(([timer]) => timer)).toContain(deadlines[0]);
    } finally {
      timeouts.mockRestore();
      set.mockRestore();
      cleared.mockRestore();
    }
  });

  test('a schema that needs more memory than a worker has is stopped, and the sandbox goes on', async () => {
    const tight = new SchemaSandbox({ memoryMb: 16 });
    try {
      // Some 13 MB of enum values (as text, parsed, then compiled into code) need well over a 16 MB
      // heap (4 MB sometimes fitted). Node 20 stops the worker at its heap cap (after one more try on a
      // fresh worker: a 400); newer V8s collect garbage near the cap until the deadline stops the worker
      // (a 503). Either way it is bounded.
      const hungry = text({ enum: Array.from({ length: 120_000 }, (_, i) => `${i}-${'x'.repeat(100)}`) });
      const error = await rejection(tight.check('acme', hungry));
      expect([
        {
          code: 'invalid_input',
          message: 'Invalid request format',
          details: {
            json_format: {
              message: 'json_format needs more memory to check than this server allows',
              path: ['json_format'],
            },
          },
        },
        {
          code: 'overloaded',
          message: 'json_format could not be checked within 2000 ms; retry later, or send a smaller schema',
          details: undefined,
        },
      ]).toContainEqual({ code: error.code, message: error.message, details: error.details });
      await tight.check('acme', text({ type: 'string' }));
    } finally {
      await tight.close();
    }
  });
});
