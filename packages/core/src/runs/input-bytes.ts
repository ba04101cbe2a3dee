/**
 * Checks of the bytes a run input carries as base64 `data`: that the text is base64, and that the
 * bytes are what the part's media type says.
 */

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * The bytes of strict base64 text (padding optional), or `undefined` when it is not: characters
 * outside the alphabet, a length no base64 text has, or bits past the last byte (text that would
 * not come back the same once decoded and encoded again).
 */
export function decodeBase64(data: string): Uint8Array | undefined {
  if (!BASE64.test(data) || data.length % 4 === 1) return undefined;
  const bytes = Buffer.from(data, 'base64');
  const unpadded = data.replace(/=+$/, '');
  if (bytes.toString('base64').replace(/=+$/, '') !== unpadded) return undefined;
  // Padding, when given, must make the length a multiple of four.
  if (unpadded.length !== data.length && data.length % 4 !== 0) return undefined;
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

const startsWith = (bytes: Uint8Array, prefix: readonly number[], at = 0) =>
  bytes.length >= at + prefix.length && prefix.every((b, i) => bytes[at + i] === b);
const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0));

/** The signature each binary media type's bytes start with. */
const SIGNATURES: Record<string, (bytes: Uint8Array) => boolean> = {
  'image/png': (b) => startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  'image/jpeg': (b) => startsWith(b, [0xff, 0xd8, 0xff]),
  'image/gif': (b) => startsWith(b, ascii('GIF87a')) || startsWith(b, ascii('GIF89a')),
  'image/webp': (b) => startsWith(b, ascii('RIFF')) && startsWith(b, ascii('WEBP'), 8),
  'application/pdf': (b) => startsWith(b, ascii('%PDF-')),
};

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Whether bytes are text: valid UTF-8 without NUL characters. */
function isText(bytes: Uint8Array): boolean {
  try {
    return !utf8.decode(bytes).includes('\u0000');
  } catch {
    return false;
  }
}

/**
 * Whether `bytes` are of `mediaType`: a binary type's signature (PNG, JPEG, GIF, WebP, PDF), or text
 * (valid UTF-8, no NUL) for the text types (`text/*`, `application/json`). Any other type: false.
 */
export function bytesMatch(mediaType: string, bytes: Uint8Array): boolean {
  const signature = SIGNATURES[mediaType];
  if (signature) return signature(bytes);
  if (mediaType.startsWith('text/') || mediaType === 'application/json') return isText(bytes);
  return false;
}
