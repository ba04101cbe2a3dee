import { generateText, streamText } from 'ai';
import { describe, expect, test } from 'vitest';
import { EchoLanguageModel, countEchoTokens } from './echo-model.js';

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
    await expect(generateText({ model, prompt: 'x', abortSignal: AbortSignal.abort(new Error('stop')), maxRetries: 0 })).rejects.toThrow('stop');
  });

  test('counts words and punctuation marks', () => {
    expect([countEchoTokens(''), countEchoTokens('Hello, world!'), countEchoTokens('日本語 text')]).toStrictEqual([0, 4, 2]);
  });
});
