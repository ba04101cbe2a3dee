import { type FormEvent, useState } from 'react';

/** The API key field: the key is kept in this browser only (see key-store.ts). */
export function KeyForm({ apiKey, onChange }: { apiKey: string; onChange: (key: string) => void }) {
  const [draft, setDraft] = useState(apiKey);
  function submit(event: FormEvent) {
    event.preventDefault();
    onChange(draft.trim());
  }
  return (
    <form className="key-form" onSubmit={submit}>
      <label htmlFor="api-key">API key</label>
      <input
        id="api-key"
        type="password"
        autoComplete="off"
        spellCheck={false}
        value={draft}
        onChange={(event) => setDraft(event.target.value)}
        placeholder="ak_…"
      />
      <button type="submit">Connect</button>
      {apiKey && (
        <button
          type="button"
          onClick={() => {
            setDraft('');
            onChange('');
          }}
        >
          Forget key
        </button>
      )}
    </form>
  );
}
