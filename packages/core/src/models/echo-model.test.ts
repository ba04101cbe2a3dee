import { generateText, jsonSchema, Output, streamText } from 'ai';
import { describe, expect, test } from 'vitest';
import { EchoLanguageModel } from './echo-model.js';
import { countEchoTokens } from './echo-tokens.js';

const model = new EchoLanguageModel();

describe('EchoLanguageModel', () => {
  test('quotes the last user message and counts usage over the whole prompt', async () => {
    const result = await generateText({ model, system: 'Be brief.', prompt: 'Hello there' });
    expect(result.text).toBe('Echo: Hello there');
    // (3 + "Be brief." = 3 tokens) + (3 + "Hello there" = 2 tokens) in; "Echo: Hello there" = 4 out.
    expect([result.usage.inputTokens, result.usage.outputTokens, result.finishReason]).toStrictEqual([11, 4, 'stop']);
  });

  test('a longer history costs more prompt tokens', async () => {
    const short = await generateText({ model, messages: [{ role: 'user', content: 'hi' }] });
    const long = await generateText({
      model,
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'Echo: hi' },
        { role: 'user', content: 'hi' },
      ],
    });
    expect(long.text).toBe(short.text);
    expect([short.usage.inputTokens, long.usage.inputTokens]).toStrictEqual([4, 4 + 6 + 4]);
  });

  test('streams the same text and usage', async () => {
    const result = streamText({ model, prompt: 'one two three' });
    const deltas: string[] = [];
    for await (const delta of result.textStream) deltas.push(delta);
    expect(deltas).toStrictEqual(['Echo: ', 'one ', 'two ', 'three']);
    expect((await result.usage).outputTokens).toBe(5);
  });

  test('is deterministic and honours an aborted signal', async () => {
    const a = await generateText({ model, prompt: 'same' });
    const b = await generateText({ model, prompt: 'same' });
    expect(a.text).toBe(b.text);
    await expect(
      generateText({ model, prompt: 'x', abortSignal: AbortSignal.abort(new Error('stop')), maxRetries: 0 }),
    ).rejects.toThrow('stop');
  });

  test('stops at maxOutputTokens, like any model, with finish reason length', async () => {
    const result = await generateText({ model, prompt: 'one two three four five', maxOutputTokens: 4 });
    expect([result.text, result.usage.outputTokens, result.finishReason]).toStrictEqual([
      'Echo: one two ',
      4,
      'length',
    ]);
  });
});

describe('EchoLanguageModel: structured output', () => {
  const structured = (schema: object, prompt: string, maxOutputTokens?: number) =>
    generateText({
      model,
      prompt,
      maxRetries: 0,
      output: Output.object({ schema: jsonSchema(schema as never) }),
      ...(maxOutputTokens && { maxOutputTokens }),
    });

  test('fills a schema with the message, leaving optional properties out when all of them would not fit', async () => {
    const schema = {
      type: 'object',
      properties: {
        answer: { type: 'string', maxLength: 5 },
        n: { type: 'integer', exclusiveMinimum: 2 },
        many: { type: 'array', minItems: 3000, items: { type: 'null' } },
      },
      required: ['answer', 'n'],
    };
    expect((await structured(schema, 'Hello there')).output).toStrictEqual({ answer: 'Hello', n: 3 });
  });

  test('cuts the message in strings to keep the whole answer within the output limit', async () => {
    const schema = { type: 'array', minItems: 4, items: { type: 'string' } };
    const result = await structured(schema, 'x'.repeat(1000), 25);
    expect(result.output).toStrictEqual(Array.from({ length: 4 }, () => 'x'.repeat(10)));
    expect(result.text.length).toBeLessThanOrEqual(100);
  });

  test('a message that cannot fill a string is an input error, found on the linear-time engine', async () => {
    const schema = {
      type: 'object',
      properties: { v: { type: 'string', maxLength: 64, pattern: '^(a+)+$' } },
      required: ['v'],
    };
    const started = performance.now();
    const error = await structured(schema, `${'a'.repeat(39)}!`).catch((e: unknown) => e);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect((error as { details: unknown }).details).toStrictEqual({
      json_format: {
        message: 'The echo model answers with the input, which does not match the pattern of /v',
        path: ['json_format'],
      },
    });
    expect((await structured(schema, 'aaaa')).output).toStrictEqual({ v: 'aaaa' });
    const short = await structured({ type: 'string', minLength: 10 }, 'hi').catch(
      (e: { details: unknown }) => e.details,
    );
    expect(short).toStrictEqual({
      json_format: {
        message: 'The echo model answers with the input, which is shorter than the minLength of /',
        path: ['json_format'],
      },
    });
  });

  test('counts words and punctuation marks', () => {
    expect([countEchoTokens(''), countEchoTokens('Hello, world!'), countEchoTokens('日本語 text')]).toStrictEqual([
      0, 4, 2,
    ]);
  });
});
