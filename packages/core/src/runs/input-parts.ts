import type { FilePart as SdkFilePart, TextPart as SdkTextPart, UserContent } from 'ai';
import { InvalidInputError } from '../errors/invalid-input-error.js';
import type { ModelInfo } from '../ports/model-provider.js';
import type { FilePart, ImagePart, MessagePart, SessionMessage } from '../records.js';
import {
  FILE_MEDIA_TYPES,
  IMAGE_MEDIA_TYPES,
  type InputPart,
  MAX_INPUT_FILE_BYTES,
  MAX_INPUT_FILES_BYTES,
} from '../schemas.js';
import { bytesMatch, decodeBase64 } from './input-bytes.js';

/** A run's input as the user's message of its turn: its text, and its parts when it has more than text. */
export interface UserTurn {
  content: string;
  parts?: MessagePart[];
}

type MediaPart = ImagePart | FilePart;
type PartPath = (string | number)[];

function badPart(path: PartPath, message: string): InvalidInputError {
  return new InvalidInputError({ message, details: { input: { message, path: ['input', ...path] } } });
}

const KIND_WORD = { image: 'images', file: 'files' } as const;

/** The kinds of input a model reads: its `input`, or text only when it does not say. */
export function modelInput(info: ModelInfo): readonly ('text' | 'image' | 'file')[] {
  return info.input ?? ['text'];
}

/** Whether a model reads every kind of part of a message (text always). */
export function readsParts(info: ModelInfo, parts: readonly MessagePart[] | undefined): boolean {
  const reads = modelInput(info);
  return (parts ?? []).every((p) => (p.type !== 'image' && p.type !== 'file') || reads.includes(p.type));
}

/**
 * Checks a URL given for a part: https, no user name or password in it (a URL is passed to the
 * provider as it is and kept in the session; the server never fetches it).
 */
function checkUrl(url: string, index: number): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw badPart([index, 'url'], 'url must be an https URL');
  }
  if (parsed.protocol !== 'https:') throw badPart([index, 'url'], 'url must be an https URL');
  if (parsed.username || parsed.password) throw badPart([index, 'url'], 'url must not contain a user name or password');
}

/** Checks a part's base64 `data` against its media type; returns how many bytes it holds. */
function checkData(part: MediaPart, index: number): number {
  const bytes = part.data === undefined ? undefined : decodeBase64(part.data);
  if (!bytes) throw badPart([index, 'data'], 'data must be base64 text');
  if (bytes.length === 0) throw badPart([index, 'data'], 'data must not be empty');
  if (bytes.length > MAX_INPUT_FILE_BYTES)
    throw badPart([index, 'data'], `data must be at most ${MAX_INPUT_FILE_BYTES} bytes (decoded)`);
  if (!bytesMatch(part.media_type, bytes))
    throw badPart([index, 'data'], `data is not ${part.media_type}: its bytes do not match the media type`);
  return bytes.length;
}

/** The stored form of an image or file part, after its checks; returns it and the bytes its data holds. */
function mediaPart(part: MediaPart, index: number, info: ModelInfo): { part: MediaPart; bytes: number } {
  const allowed: readonly string[] = part.type === 'image' ? IMAGE_MEDIA_TYPES : FILE_MEDIA_TYPES;
  if (!allowed.includes(part.media_type))
    throw badPart([index, 'media_type'], `media_type must be one of ${allowed.join(', ')}`);
  if ((part.url === undefined) === (part.data === undefined))
    throw badPart([index], `a ${part.type} part needs exactly one of url or data`);
  if (part.url !== undefined) checkUrl(part.url, index);
  const bytes = part.url !== undefined ? 0 : checkData(part, index);
  if (!modelInput(info).includes(part.type)) {
    throw badPart(
      [index],
      `The model "${info.name}" cannot read ${KIND_WORD[part.type]}; send text, or use a model that reads ${KIND_WORD[part.type]}`,
    );
  }
  const source = part.url !== undefined ? { url: part.url } : { data: part.data as string };
  const filename = part.type === 'file' && part.filename !== undefined ? { filename: part.filename } : {};
  return { part: { type: part.type, media_type: part.media_type, ...filename, ...source } as MediaPart, bytes };
}

/**
 * The user's message a run input makes: a string is its text; a list of parts is checked (one of
 * `url` or `data`, https URLs without credentials, sizes, the bytes against the media type) and must
 * suit the model (`info.input`). The message's `content` is its text parts joined by newlines.
 * @throws InvalidInputError naming `input` (a part's path) for a bad part, or a model that cannot read it.
 */
export function userTurn(input: string | readonly InputPart[], info: ModelInfo): UserTurn {
  if (typeof input === 'string') return { content: input };
  const parts: MessagePart[] = [];
  let total = 0;
  for (const [index, part] of input.entries()) {
    if (part.type === 'text') {
      parts.push({ type: 'text', text: part.text });
      continue;
    }
    const checked = mediaPart(part as MediaPart, index, info);
    total += checked.bytes;
    if (total > MAX_INPUT_FILES_BYTES)
      throw badPart([index], `the images and files of an input must be at most ${MAX_INPUT_FILES_BYTES} bytes in all`);
    parts.push(checked.part);
  }
  const content = parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n');
  return { content, parts };
}

/** One stored part as the AI SDK's user content, or nothing for a part a user message does not have. */
function sdkPart(part: MessagePart): SdkTextPart | SdkFilePart | undefined {
  const bytes = (data: string) => new Uint8Array(Buffer.from(data, 'base64'));
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text };
    // Images too: the AI SDK's own image part is deprecated for a file part of an image type.
    case 'image':
    case 'file':
      return {
        type: 'file',
        data:
          part.data !== undefined
            ? { type: 'data', data: bytes(part.data) }
            : { type: 'url', url: new URL(part.url ?? '') },
        mediaType: part.media_type,
        ...(part.type === 'file' && part.filename !== undefined && { filename: part.filename }),
      };
    default:
      return undefined;
  }
}

/** What the model is sent for a stored user message: its text, or its parts as the AI SDK's. */
export function userModelContent(message: Pick<SessionMessage, 'content' | 'parts'>): UserContent {
  const parts = message.parts;
  if (!parts?.some((p) => p.type === 'image' || p.type === 'file')) return message.content;
  return parts.flatMap((p) => sdkPart(p) ?? []);
}
