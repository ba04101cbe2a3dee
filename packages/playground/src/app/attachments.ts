import type { FileUIPart } from 'ai';

/** The media types a run input may carry (the server's lists): images, then files. */
export const ACCEPTED_TYPES = [
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'application/pdf',
  'text/plain',
  'text/markdown',
  'text/csv',
  'application/json',
] as const;

/** Most bytes of one attached file (the server's bound). */
export const MAX_FILE_BYTES = 5 * 1024 * 1024;
/** Most files one message may carry (the server takes 16 parts, one of them the text). */
export const MAX_FILES = 15;

/** Why a file cannot be attached, or `undefined` when it can. */
export function refusal(file: Pick<File, 'name' | 'type' | 'size'>): string | undefined {
  if (!(ACCEPTED_TYPES as readonly string[]).includes(file.type))
    return `${file.name}: ${file.type || 'this type'} cannot be sent (PNG, JPEG, GIF or WebP images; PDF, text, Markdown, CSV or JSON files)`;
  if (file.size > MAX_FILE_BYTES) return `${file.name} is larger than ${MAX_FILE_BYTES / 1024 / 1024} MB`;
  return undefined;
}

/** A size in words: bytes, KB or MB. */
export function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** A file as the AI SDK's file part: its bytes as a `data:` URL, which the chat route reads as base64. */
export function filePart(file: File): Promise<FileUIPart> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () =>
      resolve({ type: 'file', mediaType: file.type, filename: file.name, url: String(reader.result) });
    reader.onerror = () => reject(reader.error ?? new Error(`${file.name} could not be read`));
    reader.readAsDataURL(file);
  });
}
