import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { InvalidInputError } from '../errors/invalid-input-error.js';
import type { ModelInfo } from '../ports/model-provider.js';
import { MAX_INPUT_FILE_BYTES, MAX_INPUT_FILES_BYTES, runAgentInputSchema } from '../schemas.js';
import { parseInput } from '../validation.js';
import { bytesMatch, decodeBase64 } from './input-bytes.js';
import { userModelContent, userTurn } from './input-parts.js';

const VISION: ModelInfo = { name: 'openai/gpt-5-mini', provider: 'openai', input: ['text', 'image', 'file'] };
const TEXT_ONLY: ModelInfo = { name: 'echo', provider: 'agenthost' };

const b64 = (bytes: number[] | Uint8Array | string) => Buffer.from(bytes as never).toString('base64');
const PNG = b64([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
const JPEG = b64([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]);
const GIF = b64('GIF89a\u0001\u0000');
const WEBP = b64('RIFF\u0004\u0000\u0000\u0000WEBPVP8 ');
const PDF = b64('%PDF-1.7\n%\u00e2\u00e3');

/** The error `userTurn` throws, for its details. */
function refusal(input: Parameters<typeof userTurn>[0], info: ModelInfo = VISION): InvalidInputError {
  try {
    userTurn(input, info);
  } catch (error) {
    if (error instanceof InvalidInputError) return error;
    throw error;
  }
  throw new Error('userTurn accepted the input');
}

describe('userTurn', () => {
  test('a string input is the message text, with no parts', () => {
    expect(userTurn('hello', TEXT_ONLY)).toStrictEqual({ content: 'hello' });
  });

  test('parts: text joined by newlines into content, every part kept in order', () => {
    const turn = userTurn(
      [
        { type: 'text', text: 'What is in' },
        { type: 'image', media_type: 'image/png', data: PNG },
        { type: 'text', text: 'this picture?' },
        { type: 'file', media_type: 'application/pdf', filename: 'a.pdf', url: 'https://files.example.com/a.pdf' },
      ],
      VISION,
    );
    expect(turn).toStrictEqual({
      content: 'What is in\nthis picture?',
      parts: [
        { type: 'text', text: 'What is in' },
        { type: 'image', media_type: 'image/png', data: PNG },
        { type: 'text', text: 'this picture?' },
        { type: 'file', media_type: 'application/pdf', filename: 'a.pdf', url: 'https://files.example.com/a.pdf' },
      ],
    });
  });

  test.each([
    ['image/png', PNG],
    ['image/jpeg', JPEG],
    ['image/gif', GIF],
    ['image/webp', WEBP],
  ])('an %s image with matching bytes is accepted', (media_type, data) => {
    expect(userTurn([{ type: 'image', media_type: media_type as 'image/png', data }], VISION).parts).toStrictEqual([
      { type: 'image', media_type, data },
    ]);
  });

  test('files: a PDF by its signature, text types as UTF-8', () => {
    const parts = [
      { type: 'file' as const, media_type: 'application/pdf' as const, data: PDF },
      { type: 'file' as const, media_type: 'text/plain' as const, data: b64('héllo, wörld') },
      { type: 'file' as const, media_type: 'application/json' as const, data: b64('{"a":1}') },
    ];
    expect(userTurn(parts, VISION)).toStrictEqual({ content: '', parts });
  });

  test('a text-only model (no input declared) is refused an image, naming the part and the model', () => {
    const error = refusal(
      [
        { type: 'text', text: 'see' },
        { type: 'image', media_type: 'image/png', data: PNG },
      ],
      TEXT_ONLY,
    );
    const message = 'The model "echo" cannot read images; send text, or use a model that reads images';
    expect(error.message).toBe(message);
    expect(error.details).toStrictEqual({ input: { message, path: ['input', 1] } });
  });

  test('a model that reads images but not files is refused a file', () => {
    const error = refusal([{ type: 'file', media_type: 'text/plain', data: b64('x') }], {
      ...VISION,
      input: ['text', 'image'],
    });
    expect(error.details?.input?.message).toBe(
      'The model "openai/gpt-5-mini" cannot read files; send text, or use a model that reads files',
    );
  });

  test.each([
    [
      'both url and data',
      { type: 'image', media_type: 'image/png', data: PNG, url: 'https://x.example/a.png' },
      [0],
      'a image part needs exactly one of url or data',
    ],
    [
      'neither url nor data',
      { type: 'file', media_type: 'text/plain' },
      [0],
      'a file part needs exactly one of url or data',
    ],
    [
      'an http URL',
      { type: 'image', media_type: 'image/png', url: 'http://x.example/a.png' },
      [0, 'url'],
      'url must be an https URL',
    ],
    [
      'credentials in the URL',
      { type: 'image', media_type: 'image/png', url: 'https://user:pw@x.example/a.png' },
      [0, 'url'],
      'url must not contain a user name or password',
    ],
    [
      'not a URL',
      { type: 'image', media_type: 'image/png', url: 'https//nope' },
      [0, 'url'],
      'url must be an https URL',
    ],
    [
      'bytes of another type',
      { type: 'image', media_type: 'image/png', data: JPEG },
      [0, 'data'],
      'data is not image/png: its bytes do not match the media type',
    ],
    [
      'a text file that is not UTF-8',
      { type: 'file', media_type: 'text/csv', data: b64([0xff, 0xfe, 0x41]) },
      [0, 'data'],
      'data is not text/csv: its bytes do not match the media type',
    ],
    ['empty data', { type: 'file', media_type: 'text/plain', data: '' }, [0, 'data'], 'data must not be empty'],
    [
      'data that is not base64',
      { type: 'file', media_type: 'text/plain', data: 'a$b=' },
      [0, 'data'],
      'data must be base64 text',
    ],
    [
      'a media type not offered',
      { type: 'image', media_type: 'image/svg+xml', data: b64('<svg/>') },
      [0, 'media_type'],
      'media_type must be one of image/png, image/jpeg, image/gif, image/webp',
    ],
  ])('refuses %s', (_name, part, path, message) => {
    const error = refusal([part as never]);
    expect(error.details).toStrictEqual({ input: { message, path: ['input', ...path] } });
  });

  test('a part over the size limit, and parts over the total, are refused', () => {
    const big = Buffer.alloc(MAX_INPUT_FILE_BYTES + 1, 0x41);
    expect(refusal([{ type: 'file', media_type: 'text/plain', data: big.toString('base64') }]).details).toStrictEqual({
      input: { message: `data must be at most ${MAX_INPUT_FILE_BYTES} bytes (decoded)`, path: ['input', 0, 'data'] },
    });
    const part = Buffer.alloc(MAX_INPUT_FILE_BYTES, 0x41).toString('base64');
    const file = { type: 'file' as const, media_type: 'text/plain' as const, data: part };
    expect(MAX_INPUT_FILES_BYTES / MAX_INPUT_FILE_BYTES).toBe(2);
    expect(userTurn([file, file], VISION).parts).toHaveLength(2);
    expect(refusal([file, file, { ...file, data: b64('x') }]).details).toStrictEqual({
      input: {
        message: `the images and files of an input must be at most ${MAX_INPUT_FILES_BYTES} bytes in all`,
        path: ['input', 2],
      },
    });
  });
});

describe('the run input schema', () => {
  const issues = (input: unknown) => {
    try {
      parseInput(runAgentInputSchema, { input });
    } catch (error) {
      return (error as InvalidInputError).details;
    }
    return undefined;
  };

  test('a list of parts reports what is wrong with a part, not that it is not a string either', () => {
    expect(issues([{ type: 'image', media_type: 'image/tiff', data: 'AAAA' }])).toStrictEqual({
      input: {
        message: 'media_type must be one of image/png, image/jpeg, image/gif, image/webp',
        path: ['input', 0, 'media_type'],
      },
    });
    expect(issues([{ type: 'text', text: 'a' }, { type: 'video' }])).toStrictEqual({
      input: { message: 'each part must have type "text", "image" or "file"', path: ['input', 1, 'type'] },
    });
    expect(issues([{ type: 'image', media_type: 'image/png', url: 'http://x.example/a.png' }])).toStrictEqual({
      input: { message: 'url must be an https URL', path: ['input', 0, 'url'] },
    });
  });

  test('neither a string nor a list: the union’s own message', () => {
    expect(issues(5)).toStrictEqual({
      input: { message: 'input must be a string or a list of parts (text, image, file)', path: ['input'] },
    });
    expect(issues([])).toStrictEqual({ input: { message: 'input must have at least one part', path: ['input'] } });
  });
});

describe('userModelContent', () => {
  test('a text-only message is its text', () => {
    expect(userModelContent({ content: 'hi' })).toBe('hi');
    expect(userModelContent({ content: 'hi', parts: [{ type: 'text', text: 'hi' }] })).toBe('hi');
  });

  test('images and files become the AI SDK file parts: bytes for data, URLs as URLs', () => {
    const content = userModelContent({
      content: 'look',
      parts: [
        { type: 'text', text: 'look' },
        { type: 'image', media_type: 'image/png', data: PNG },
        { type: 'image', media_type: 'image/jpeg', url: 'https://x.example/a.jpg' },
        { type: 'file', media_type: 'text/plain', filename: 'n.txt', data: b64('note') },
        { type: 'file', media_type: 'application/pdf', url: 'https://x.example/a.pdf' },
      ],
    });
    expect(content).toStrictEqual([
      { type: 'text', text: 'look' },
      {
        type: 'file',
        data: { type: 'data', data: new Uint8Array(Buffer.from(PNG, 'base64')) },
        mediaType: 'image/png',
      },
      { type: 'file', data: { type: 'url', url: new URL('https://x.example/a.jpg') }, mediaType: 'image/jpeg' },
      {
        type: 'file',
        data: { type: 'data', data: new Uint8Array(Buffer.from('note')) },
        mediaType: 'text/plain',
        filename: 'n.txt',
      },
      { type: 'file', data: { type: 'url', url: new URL('https://x.example/a.pdf') }, mediaType: 'application/pdf' },
    ]);
  });
});

describe('decodeBase64', () => {
  test('strict: the alphabet, the length and no bits past the last byte', () => {
    expect(decodeBase64('aGk=')).toStrictEqual(new Uint8Array(Buffer.from('hi')));
    expect(decodeBase64('aGk')).toStrictEqual(new Uint8Array(Buffer.from('hi')));
    expect(decodeBase64('aGl=')).toBeUndefined(); // bits past the last byte
    expect(decodeBase64('aGk==')).toBeUndefined();
    expect(decodeBase64('a')).toBeUndefined();
    expect(decodeBase64('aG k=')).toBeUndefined();
    expect(decodeBase64('aGk-')).toBeUndefined();
  });

  // Fixed seeds: a failure here is reproducible as it is.
  test('property: any bytes come back from their base64, padded or not', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        const text = Buffer.from(bytes).toString('base64');
        expect(decodeBase64(text)).toStrictEqual(bytes);
        expect(decodeBase64(text.replace(/=+$/, ''))).toStrictEqual(bytes);
      }),
      { seed: 1313, numRuns: 300 },
    );
  });

  test('property: what decodes is exactly the canonical base64 of its bytes', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'AB+/=a9$ -'), maxLength: 24 }), (text) => {
        const bytes = decodeBase64(text);
        if (bytes) expect(Buffer.from(bytes).toString('base64').replace(/=+$/, '')).toBe(text.replace(/=+$/, ''));
      }),
      { seed: 1314, numRuns: 500 },
    );
  });
});

describe('part checks, fuzzed', () => {
  const mediaPart = fc.record({
    type: fc.constantFrom('image', 'file'),
    media_type: fc.constantFrom('image/png', 'image/jpeg', 'application/pdf', 'text/plain', 'image/tiff', ''),
    url: fc.option(fc.oneof(fc.webUrl(), fc.constant('https://a.example/x.png'), fc.string()), { nil: undefined }),
    data: fc.option(
      fc.oneof(
        fc.uint8Array({ maxLength: 32 }).map((b) => Buffer.from(b).toString('base64')),
        fc.constant(PNG),
        fc.string(),
      ),
      { nil: undefined },
    ),
  });

  test('property: a part is either refused with an InvalidInputError naming input, or kept only when sound', () => {
    fc.assert(
      fc.property(fc.array(mediaPart, { minLength: 1, maxLength: 4 }), (parts) => {
        let turn: ReturnType<typeof userTurn>;
        try {
          turn = userTurn(parts as never, VISION);
        } catch (error) {
          expect(error).toBeInstanceOf(InvalidInputError);
          const issue = (error as InvalidInputError).details?.input;
          expect(issue?.path.slice(0, 1)).toStrictEqual(['input']);
          expect(parts[issue?.path[1] as number]).toBeDefined();
          return;
        }
        for (const part of turn.parts ?? []) {
          if (part.type !== 'image' && part.type !== 'file') continue;
          expect((part.url === undefined) !== (part.data === undefined)).toBe(true);
          if (part.url !== undefined) expect(new URL(part.url).protocol).toBe('https:');
          if (part.data !== undefined)
            expect(bytesMatch(part.media_type, decodeBase64(part.data) as Uint8Array)).toBe(true);
        }
      }),
      { seed: 1315, numRuns: 500 },
    );
  });

  test('a text-only model is refused every image and file, whatever the part', () => {
    fc.assert(
      fc.property(mediaPart, (part) => {
        expect(() => userTurn([part as never], TEXT_ONLY)).toThrow(InvalidInputError);
      }),
      { seed: 1316, numRuns: 200 },
    );
  });
});
