import { MAX_METADATA_PAIRS, type MetadataRow } from './agent-draft';

/** The agent's metadata: key and value pairs to add, change and remove (at most 16). */
export function MetadataEditor({ rows, onChange }: { rows: MetadataRow[]; onChange: (rows: MetadataRow[]) => void }) {
  const set = (index: number, row: Partial<MetadataRow>) =>
    onChange(rows.map((old, i) => (i === index ? { ...old, ...row } : old)));
  return (
    <fieldset className="metadata">
      <legend>Metadata</legend>
      {rows.length === 0 && <p className="muted">No metadata.</p>}
      {rows.map((row, index) => (
        // Rows have no identity but their place; removing one re-renders those after it.
        // biome-ignore lint/suspicious/noArrayIndexKey: the place is the row's identity here.
        <div className="row pair" key={index}>
          <input
            aria-label={`Metadata key ${index + 1}`}
            placeholder="key"
            maxLength={64}
            value={row.key}
            onChange={(event) => set(index, { key: event.target.value })}
          />
          <input
            aria-label={`Metadata value ${index + 1}`}
            placeholder="value"
            maxLength={512}
            value={row.value}
            onChange={(event) => set(index, { value: event.target.value })}
          />
          <button
            type="button"
            aria-label={`Remove metadata pair ${index + 1}`}
            onClick={() => onChange(rows.filter((_, i) => i !== index))}
          >
            ×
          </button>
        </div>
      ))}
      <button
        type="button"
        disabled={rows.length >= MAX_METADATA_PAIRS}
        onClick={() => onChange([...rows, { key: '', value: '' }])}
      >
        Add metadata
      </button>
      {rows.length >= MAX_METADATA_PAIRS && <p className="muted">At most {MAX_METADATA_PAIRS} pairs.</p>}
    </fieldset>
  );
}
