import type { FileUIPart } from 'ai';
import { type FormEvent, useRef, useState } from 'react';
import { ACCEPTED_TYPES, filePart, MAX_FILES, refusal, size } from './attachments';
import { ErrorLine } from './error-line';

/** What tells attached files apart. */
const fileKey = (file: File) => `${file.name}\n${file.size}\n${file.lastModified}`;

/**
 * The message field, its attached files, *Run in background* (text only: attachments go with the
 * chat's own runs), and Send (or Stop while a reply streams).
 */
export function Composer({
  busy,
  streaming,
  background,
  onBackground,
  onSend,
  onStop,
}: {
  busy: boolean;
  streaming: boolean;
  background: boolean;
  onBackground: (on: boolean) => void;
  onSend: (message: { text: string; files: FileUIPart[] }) => void;
  onStop: () => void;
}) {
  const [draft, setDraft] = useState('');
  const [files, setFiles] = useState<File[]>([]);
  const [error, setError] = useState<string>();
  const picker = useRef<HTMLInputElement>(null);

  function attach(list: FileList | null) {
    // A file chosen twice is attached once.
    const chosen = [...(list ?? [])].filter((file) => !files.some((old) => fileKey(old) === fileKey(file)));
    const refused = chosen.map(refusal).filter((reason): reason is string => reason !== undefined);
    const room = MAX_FILES - files.length;
    const accepted = chosen.filter((file) => refusal(file) === undefined);
    if (accepted.length > room) refused.push(`At most ${MAX_FILES} files per message`);
    setError(refused.length ? refused.join('; ') : undefined);
    setFiles([...files, ...accepted.slice(0, Math.max(room, 0))]);
    // The same file can be chosen again after it was removed.
    if (picker.current) picker.current.value = '';
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    const text = draft.trim();
    if ((!text && files.length === 0) || busy) return;
    try {
      const parts = await Promise.all(files.map(filePart));
      setDraft('');
      setFiles([]);
      setError(undefined);
      onSend({ text, files: parts });
    } catch (failure) {
      setError((failure as Error).message);
    }
  }

  return (
    <form className="composer" onSubmit={submit}>
      {files.length > 0 && (
        <ul className="attached" aria-label="Attached files">
          {files.map((file, index) => (
            <li key={fileKey(file)}>
              {file.name} <span className="muted">({size(file.size)})</span>
              <button
                type="button"
                aria-label={`Remove ${file.name}`}
                onClick={() => setFiles(files.filter((_, i) => i !== index))}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      <ErrorLine error={error} />
      <div className="row composer-row">
        <label htmlFor="message" className="visually-hidden">
          Message
        </label>
        <textarea
          id="message"
          rows={2}
          value={draft}
          onChange={(event) => setDraft(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter' && !event.shiftKey) void submit(event);
          }}
          placeholder="Message (Enter sends, Shift+Enter for a new line)"
        />
        {!background && (
          <label
            className="attach button"
            title="Images (PNG, JPEG, GIF, WebP) and PDF, text, Markdown, CSV or JSON files"
          >
            Attach
            <input
              ref={picker}
              type="file"
              multiple
              className="visually-hidden"
              aria-label="Attach files"
              accept={ACCEPTED_TYPES.join(',')}
              onChange={(event) => attach(event.target.files)}
            />
          </label>
        )}
        <label className="background" title="The server keeps the run going if this page goes; a reload reattaches">
          <input
            type="checkbox"
            checked={background}
            disabled={busy || files.length > 0}
            onChange={(event) => onBackground(event.target.checked)}
          />
          Run in background
        </label>
        {streaming ? (
          <button type="button" onClick={onStop}>
            Stop
          </button>
        ) : (
          <button type="submit" disabled={busy || (!draft.trim() && files.length === 0)}>
            Send
          </button>
        )}
      </div>
    </form>
  );
}
