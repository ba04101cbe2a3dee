import { type InputPart, InvalidInputError } from '@agenthost/core';

/** A part of an AI SDK UI message, as the chat body schema lets it through (its `type` checked, the rest loose). */
export type UiPart = { type: string } & Record<string, unknown>;

/** `data:<media type>[;param...];base64,<data>`: the form `useChat` sends attached files in. */
const DATA_URL = /^data:([a-z0-9.+-]+\/[a-z0-9.+-]+)((?:;[a-z0-9-]+=[^;,]*)*);base64,([A-Za-z0-9+/]*={0,2})$/i;

function badFile(index: number, message: string): InvalidInputError {
  const path = ['messages', 'parts', index];
  return new InvalidInputError({ details: { [path.join('.')]: { message, path } } });
}

/**
 * One UI file part (`{type: 'file', mediaType, url, filename?}`) as a run input part: an image for an
 * `image/*` media type, else a file; a `data:` URL's base64 becomes `data`, an `https:` URL stays a
 * `url` (never fetched here). Anything else is a 400 naming the part: the run's own checks (types,
 * magic bytes, sizes) follow when the service reads the input.
 */
function fileInput(part: UiPart, index: number): InputPart {
  const { mediaType, url, filename } = part;
  if (typeof mediaType !== 'string' || typeof url !== 'string')
    throw badFile(index, 'a file part must have a mediaType and a url');
  const name = typeof filename === 'string' && filename !== '' ? { filename } : {};
  const data = DATA_URL.exec(url);
  let source: { data: string } | { url: string };
  if (data) source = { data: data[3]! };
  else if (url.startsWith('https://')) source = { url };
  else throw badFile(index, 'a file part’s url must be a base64 data: URL or an https URL');
  const media_type = mediaType.toLowerCase();
  return media_type.startsWith('image/')
    ? ({ type: 'image', media_type, ...source } as InputPart)
    : ({ type: 'file', media_type, ...name, ...source } as InputPart);
}

/**
 * The run input of the AI SDK's last user message: its text when it has only text (as before), else
 * its text and file parts in order as input parts. Other kinds of parts (reasoning, data, steps) are
 * not input and are left out.
 */
export function uiMessageInput(parts: readonly UiPart[]): string | InputPart[] {
  const texts = parts.filter((part) => part.type === 'text' && typeof part.text === 'string');
  if (!parts.some((part) => part.type === 'file')) return texts.map((part) => part.text as string).join('');
  const input: InputPart[] = [];
  parts.forEach((part, index) => {
    if (part.type === 'file') input.push(fileInput(part, index));
    else if (part.type === 'text' && typeof part.text === 'string' && part.text.trim() !== '')
      input.push({ type: 'text', text: part.text });
  });
  return input;
}

/** A chat input as the request log shows it: its text, and one `[image/png]` mark per attachment. */
export function inputLogText(input: string | readonly InputPart[] | undefined): string {
  if (input === undefined || typeof input === 'string') return input ?? '';
  return input.map((part) => (part.type === 'text' ? part.text : `[${part.media_type}]`)).join(' ');
}
