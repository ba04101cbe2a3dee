import { InvalidInputError } from '@agenthost/core';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { inputLogText, type UiPart, uiMessageInput } from './chat-input-parts.js';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

/** The details of the 400 a call throws, or a failure when it does not throw one. */
function refusal(call: () => unknown) {
  try {
    call();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInputError);
    return { message: (error as InvalidInputError).message, details: (error as InvalidInputError).details };
  }
  throw new Error('expected a refusal');
}

describe('uiMessageInput', () => {
  test('text parts only: the joined text, as the chat route always read it', () => {
    expect(
      uiMessageInput([{ type: 'step-start' }, { type: 'text', text: 'hello ' }, { type: 'text', text: 'there' }]),
    ).toBe('hello there');
  });

  test('with files: text and files in order; data URLs become base64 data, https URLs stay URLs', () => {
    const parts: UiPart[] = [
      { type: 'text', text: 'What is in these?' },
      { type: 'file', mediaType: 'image/png', filename: 'dot.png', url: `data:image/png;base64,${PNG}` },
      { type: 'reasoning', text: 'ignored' },
      { type: 'file', mediaType: 'application/pdf', filename: 'a.pdf', url: 'https://example.com/a.pdf' },
      { type: 'file', mediaType: 'text/plain', url: 'data:text/plain;charset=utf-8;base64,aGk=' },
      { type: 'text', text: '  ' },
    ];
    expect(uiMessageInput(parts)).toStrictEqual([
      { type: 'text', text: 'What is in these?' },
      { type: 'image', media_type: 'image/png', data: PNG },
      { type: 'file', media_type: 'application/pdf', filename: 'a.pdf', url: 'https://example.com/a.pdf' },
      { type: 'file', media_type: 'text/plain', data: 'aGk=' },
    ]);
  });

  test('a file alone is an input of one part', () => {
    expect(
      uiMessageInput([{ type: 'file', mediaType: 'IMAGE/PNG', url: `data:image/png;base64,${PNG}` }]),
    ).toStrictEqual([{ type: 'image', media_type: 'image/png', data: PNG }]);
  });

  test.each([
    ['an http URL', { mediaType: 'image/png', url: 'http://example.com/a.png' }],
    ['a file: URL', { mediaType: 'image/png', url: 'file:///etc/passwd' }],
    ['a data URL that is not base64', { mediaType: 'text/plain', url: 'data:text/plain,hello' }],
    ['no url', { mediaType: 'image/png' }],
    ['no media type', { url: `data:image/png;base64,${PNG}` }],
    ['a url that is not a string', { mediaType: 'image/png', url: 7 }],
  ])('%s is a 400 naming the part', (_, part) => {
    expect(
      refusal(() =>
        uiMessageInput([
          { type: 'text', text: 'look' },
          { type: 'file', ...part },
        ]),
      ),
    ).toStrictEqual({
      message: 'Invalid request format',
      details: {
        'messages.parts.1': {
          message: expect.stringMatching(
            /^a file part(’s url)? must (have a mediaType and a url|be a base64 data: URL or an https URL)$/,
          ),
          path: ['messages', 'parts', 1],
        },
      },
    });
  });

  test('any file part is either mapped to one input part or refused with a 400 (fixed seed)', () => {
    const part = fc.record(
      {
        type: fc.constant('file'),
        mediaType: fc.oneof(fc.constantFrom('image/png', 'application/pdf', 'text/plain'), fc.string(), fc.integer()),
        url: fc.oneof(
          fc.string(),
          fc.base64String().map((b) => `data:image/png;base64,${b}`),
          fc.webUrl().map((u) => u.replace(/^http:/, 'https:')),
          fc.constant(null),
        ),
        filename: fc.option(fc.string(), { nil: undefined }),
      },
      { requiredKeys: ['type'] },
    );
    fc.assert(
      fc.property(fc.array(part, { minLength: 1, maxLength: 4 }), (parts) => {
        let input: ReturnType<typeof uiMessageInput>;
        try {
          input = uiMessageInput(parts as UiPart[]);
        } catch (error) {
          return error instanceof InvalidInputError;
        }
        return (
          Array.isArray(input) &&
          input.length === parts.length &&
          input.every((p) => p.type !== 'text' && ('data' in p ? !('url' in p) : p.url?.startsWith('https://')))
        );
      }),
      { seed: 20261124, numRuns: 2000 },
    );
  });
});

describe('inputLogText', () => {
  test('text as it is; parts as their text and a mark per attachment', () => {
    expect(inputLogText('hi')).toBe('hi');
    expect(inputLogText(undefined)).toBe('');
    expect(
      inputLogText([
        { type: 'text', text: 'look' },
        { type: 'image', media_type: 'image/png', data: PNG },
      ]),
    ).toBe('look [image/png]');
  });
});
