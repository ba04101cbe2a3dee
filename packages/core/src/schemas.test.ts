import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import {
  type InputPart,
  runAgentFieldsSchema,
  runAgentInputSchema,
  updateAgentInputSchema,
  withRunRules,
} from './schemas.js';

describe('run input', () => {
  test('takes only the run’s own fields: a transport’s `stream`, and anything else, is dropped', () => {
    expect(runAgentInputSchema.parse({ input_data: 'hi', session_id: 's', stream: 'yes', extra: 1 })).toStrictEqual({
      session_id: 's',
      input: 'hi',
    });
  });

  test('a transport extends the fields with its own and keeps the run’s rules', () => {
    const http = withRunRules(
      runAgentFieldsSchema.extend({ stream: z.boolean({ error: 'stream must be true or false' }) }),
    );
    const parsed: { input: string | readonly InputPart[]; stream: boolean } = http.parse({
      input_data: 'hi',
      stream: true,
    });
    expect(parsed).toStrictEqual({ stream: true, input: 'hi' });
    expect(http.safeParse({ stream: 'yes' }).error?.issues.map((i) => [i.path, i.message])).toStrictEqual([
      [['stream'], 'stream must be true or false'],
    ]);
    expect(http.safeParse({ stream: false }).error?.issues.map((i) => [i.path, i.message])).toStrictEqual([
      [['input'], 'input is required'],
    ]);
  });

  test('a parse gives its payload no closure of its own (zod’s superRefine and transform add an `addIssue` per parse)', () => {
    // Such a closure kept every parsed input alive through young-generation collections (docs/performance.md, "Memory").
    const http = withRunRules(runAgentFieldsSchema.extend({ stream: z.boolean().nullish() }));
    for (const schema of [runAgentInputSchema, http]) {
      for (const value of [{ input: 'hi', session_id: 's' }, { input_data: 'hi', stream: true }, { session_id: 's' }]) {
        const payload: z.core.ParsePayload = { value, issues: [] };
        const result = schema._zod.run(payload, {});
        expect(result).toBe(payload);
        expect(
          Object.keys(payload)
            .filter((key) => key !== 'aborted')
            .sort(),
        ).toStrictEqual(['issues', 'value']);
      }
    }
    expect(http.parse({ input_data: 'hi', stream: true })).toStrictEqual({ stream: true, input: 'hi' });
  });

  test('without an input nothing after the rules runs: a check chained on the schema sees only a set `input`', () => {
    const short = runAgentInputSchema.refine((run) => run.input.length < 5, 'input too long');
    expect(short.safeParse({ session_id: 's' }).error?.issues.map((i) => [i.path, i.message])).toStrictEqual([
      [['input'], 'input is required'],
    ]);
    expect(short.safeParse({ input_data: 'far too long' }).error?.issues.map((i) => [i.path, i.message])).toStrictEqual(
      [[[], 'input too long']],
    );
    expect(short.parse({ input_data: 'hi' })).toStrictEqual({ input: 'hi' });
  });
});

describe('text fields', () => {
  test('blank is only whitespace, as trim() sees it (Unicode spaces, line breaks, BOM); the text is kept as given', () => {
    const blank = runAgentInputSchema.safeParse({ input: ' \u00a0\u2003\u3000\ufeff\n\t\u2028' });
    expect(blank.error?.issues.map((i) => [i.path, i.message])).toStrictEqual([[['input'], 'input must not be blank']]);
    expect(runAgentInputSchema.parse({ input: '\u00a0 x \n' })).toStrictEqual({ input: '\u00a0 x \n' });
  });
});

describe('update input', () => {
  test('reads the fields themselves, never a nested `config` (a PUT body is unwrapped by the transport)', () => {
    expect(updateAgentInputSchema.parse({ config: { name: 'Nested' }, instruction: 'Top' })).toStrictEqual({
      instruction: 'Top',
    });
  });
});
